package dev.compactor.server.proxy;

import dev.compactor.testkit.TestPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;

/** The proxy's operations on PostgreSQL ({@link TestPostgres}), each test in a fresh schema. */
class PostgresProxyOpsTest extends ProxyOpsContract {
  private String schema;

  @Override
  ProxyStore openStore(Path dir) {
    schema = TestPostgres.newSchema("proxyops");
    return ProxyStore.openPostgres(TestPostgres.jdbcUrl(), TestPostgres.properties(), schema);
  }

  @AfterEach
  void dropSchema() {
    TestPostgres.dropSchema(schema);
  }
}
