package dev.compactor.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.testkit.TestPostgres.Choice;
import dev.compactor.testkit.TestPostgres.Mode;
import dev.compactor.testkit.TestPostgres.Server;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class TestPostgresTest {
  private static final String SOURCE = "environment variable COMPACTOR_TEST_POSTGRES";

  @Test
  void parse_unsetBlankOrAuto_isAuto() {
    assertThat(TestPostgres.parse(null, SOURCE).mode()).isEqualTo(Mode.AUTO);
    assertThat(TestPostgres.parse("  ", SOURCE).mode()).isEqualTo(Mode.AUTO);
    assertThat(TestPostgres.parse("AUTO", SOURCE).mode()).isEqualTo(Mode.AUTO);
  }

  @Test
  void parse_localAndEmbedded() {
    assertThat(TestPostgres.parse("local", SOURCE))
        .isEqualTo(new Choice(Mode.LOCAL, TestPostgres.LOCAL));
    assertThat(TestPostgres.parse(" embedded ", SOURCE).mode()).isEqualTo(Mode.EMBEDDED);
    assertThat(TestPostgres.LOCAL.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/test");
  }

  @Test
  void parse_jdbcUrl_takesHostPortDatabaseAndCredentials() {
    Server s =
        TestPostgres.parse("jdbc:postgresql://db.example:6543/ci?user=ci&password=p%40ss", SOURCE)
            .server();
    assertThat(s.host()).isEqualTo("db.example");
    assertThat(s.port()).isEqualTo(6543);
    assertThat(s.database()).isEqualTo("ci");
    assertThat(s.user()).isEqualTo("ci");
    assertThat(s.password()).isEqualTo("p@ss");
    assertThat(s.properties()).containsEntry("user", "ci").containsEntry("password", "p@ss");
    assertThat(s.uri("sch"))
        .isEqualTo("postgresql://ci:p%40ss@db.example:6543/ci?currentSchema=sch");
    assertThat(s.jdbcUrl("sch"))
        .isEqualTo(
            "jdbc:postgresql://db.example:6543/ci?user=ci&password=p%40ss&currentSchema=sch");

    Server defaults = TestPostgres.parse("jdbc:postgresql://h/d", SOURCE).server();
    assertThat(defaults.port()).isEqualTo(5432);
    assertThat(defaults.user()).isEqualTo("postgres");
    assertThat(defaults.password()).isNull();
    assertThat(defaults.uri("s")).isEqualTo("postgresql://postgres@h:5432/d?currentSchema=s");
  }

  @Test
  void parse_unknownValueOrUrlWithoutDatabase_namesTheValueAndItsSource() {
    assertThatThrownBy(() -> TestPostgres.parse("embeded", SOURCE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"embeded\"")
        .hasMessageContaining(SOURCE)
        .hasMessageContaining("auto, local, embedded");
    assertThatThrownBy(() -> TestPostgres.parse("jdbc:postgresql://h:5432/", SOURCE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs a host and a database");
  }

  @Test
  void answers_aClosedPort_saysWhy() throws Exception {
    assertThat(TestPostgres.answers(closedPort())).isNotBlank();
  }

  @Test
  void newSchema_isAFreshPlainIdentifier() {
    assertThat(TestPostgres.newSchema("chat_test")).matches("chat_test_[0-9a-f]{12}");
    assertThat(TestPostgres.newSchema()).isNotEqualTo(TestPostgres.newSchema());
    assertThatThrownBy(() -> TestPostgres.newSchema("Bad-Prefix"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TestPostgres.dropSchema("x; DROP TABLE t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain identifier");
  }

  /** Whichever server the switch chose for this JVM: it answers, schemas come and go. */
  @Test
  void server_answers_andSchemasAreCreatedAndDropped() throws Exception {
    String schema = TestPostgres.newSchema();
    try (Connection c = TestPostgres.connect();
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
      s.execute("CREATE TABLE " + schema + ".t (x int)");
      s.execute("INSERT INTO " + schema + ".t VALUES (41)");
      try (ResultSet rs = s.executeQuery("SELECT x + 1 FROM " + schema + ".t")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getInt(1)).isEqualTo(42);
      }
    }
    TestPostgres.dropSchema(schema);
    assertThat(schemaExists(TestPostgres.server(), schema)).isFalse();
  }

  /**
   * The fallback runs in every build, whichever server the other tests use: with no local server
   * answering, a real PostgreSQL starts from the Maven artifacts, takes a login, and is gone once
   * closed.
   */
  @Test
  void auto_withNoLocalServer_startsAnEmbeddedOne_thatStopsWhenClosed() throws Exception {
    Server closed = closedPort();
    Server server;
    try (TestPostgres.Started started =
        TestPostgres.start(TestPostgres.parse("auto", SOURCE), SOURCE, closed)) {
      server = started.server();
      assertThat(server.origin()).startsWith("embedded PostgreSQL ");
      assertThat(TestPostgres.answers(server)).isNull();
      try (Connection c = server.connect();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num')::int")) {
        rs.next();
        assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(140000);
      }
      String schema = TestPostgres.newSchema();
      try (Connection c = DriverManager.getConnection(server.jdbcUrl(schema));
          Statement s = c.createStatement()) {
        s.execute("CREATE SCHEMA " + schema);
      }
      assertThat(schemaExists(server, schema)).isTrue();
    }
    assertThat(TestPostgres.answers(server)).as("stopped after close").isNotNull();
  }

  @Test
  void localOrUrl_thatDoesNotAnswer_failsNamingTheSwitch() throws Exception {
    Server closed = closedPort();
    assertThatThrownBy(
            () -> TestPostgres.start(new Choice(Mode.LOCAL, closed), SOURCE, closed).close())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(SOURCE)
        .hasMessageContaining("127.0.0.1:" + closed.port())
        .hasMessageContaining("does not answer");
    Choice url = TestPostgres.parse("jdbc:postgresql://127.0.0.1:" + closed.port() + "/x", SOURCE);
    assertThatThrownBy(() -> TestPostgres.start(url, SOURCE, TestPostgres.LOCAL).close())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not answer");
  }

  /** A server on a port of this machine that nothing listens on. */
  private static Server closedPort() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    return new Server("127.0.0.1", port, "test", "postgres", null, "PostgreSQL");
  }

  private static boolean schemaExists(Server server, String schema) throws SQLException {
    try (Connection c = server.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT 1 FROM information_schema.schemata WHERE schema_name = '" + schema + "'")) {
      return rs.next();
    }
  }
}
