package dev.compactor.server.proxy;

import dev.compactor.testkit.TestPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The proxy's operations on PostgreSQL ({@link TestPostgres}), each test in a fresh schema. */
class PostgresProxyOpsTest extends ProxyOpsContract {
  @RegisterExtension final PostgresProxyStores postgres = new PostgresProxyStores("proxyops");

  @Override
  ProxyStore openStore(Path dir) {
    return postgres.open();
  }
}
