package dev.compactor.server.proxy;

import dev.compactor.testkit.TestPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;

/** The proxy on PostgreSQL ({@link TestPostgres}), each test in a fresh schema. */
class PostgresProxyTest extends ProxyContract {
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
