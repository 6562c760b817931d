package dev.compactor.server.proxy;

import dev.compactor.testkit.TestPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;

/**
 * The Responses route of the proxy on PostgreSQL ({@link TestPostgres}), each test in a fresh
 * schema.
 */
class PostgresResponsesProxyTest extends ResponsesProxyContract {
  private String schema;

  @Override
  ProxyStore openStore(Path dir) {
    schema = TestPostgres.newSchema("proxy");
    return ProxyStore.openPostgres(TestPostgres.jdbcUrl(), TestPostgres.properties(), schema);
  }

  @AfterEach
  void dropSchema() {
    TestPostgres.dropSchema(schema);
  }
}
