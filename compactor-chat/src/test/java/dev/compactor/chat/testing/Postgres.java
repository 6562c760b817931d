package dev.compactor.chat.testing;

import dev.compactor.chat.store.PostgresChatStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;

/**
 * The local PostgreSQL server of the test machines (127.0.0.1:5432, user postgres, trust auth,
 * database test). Each test run works in its own fresh schema {@code chat_test_<random>}, dropped
 * afterwards, so parallel runs never collide. {@code .ci/run} starts the server when it is not
 * running.
 */
public final class Postgres {
  private Postgres() {}

  public static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";

  public static Properties properties() {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    return p;
  }

  /** A fresh schema name. */
  public static String newSchema() {
    return "chat_test_"
        + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
  }

  /** A store in {@code schema} (created when missing). */
  public static PostgresChatStore open(String schema) {
    return PostgresChatStore.open(URL, properties(), schema);
  }

  /** Drops the schema and everything in it. */
  public static void drop(String schema) {
    try (Connection c = DriverManager.getConnection(URL, properties());
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop test schema " + schema, e);
    }
  }
}
