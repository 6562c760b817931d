package dev.compactor.server.proxy;

import dev.compactor.testkit.TestPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Responses route of the proxy on PostgreSQL ({@link TestPostgres}), each test in a fresh
 * schema.
 */
class PostgresResponsesProxyTest extends ResponsesProxyContract {
  @RegisterExtension final PostgresProxyStores postgres = new PostgresProxyStores("proxy");

  @Override
  ProxyStore openStore(Path dir) {
    return postgres.open();
  }
}
