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
  private PostgresChatStore store;

  @BeforeEach
  void open() {
    schema = TestPostgres.newSchema("keys_test");
    store = PostgresChatStore.open(TestPostgres.jdbcUrl(), TestPostgres.properties(), schema);
  }

  @AfterEach
  void close() {
    store.close();
    TestPostgres.dropSchema(schema);
  }

  @Override
  protected JdbcChatStore store() {
    return store;
  }

  @Override
  protected ChatStore reopen() {
    store.close();
    store = PostgresChatStore.open(TestPostgres.jdbcUrl(), TestPostgres.properties(), schema);
    return store;
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
