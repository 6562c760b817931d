package dev.compactor.chat.store;

import dev.compactor.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The key store contract on a real PostgreSQL server, each test in a fresh schema. */
class PostgresKeyStoreTest extends KeyStoreContract {
  private String schema;

  @BeforeEach
  void newSchema() {
    schema = TestPostgres.newSchema("keys_test");
  }

  @AfterEach
  void dropSchema() {
    closeStore();
    TestPostgres.dropSchema(schema);
  }

  @Override
  protected JdbcChatStore open() {
    return PostgresChatStore.open(TestPostgres.jdbcUrl(), TestPostgres.properties(), schema);
  }

  @Override
  protected Connection rawConnection() throws SQLException {
    Connection c = TestPostgres.connect();
    try (Statement s = c.createStatement()) {
      s.execute("SET search_path TO " + schema);
    }
    return c;
  }
}
