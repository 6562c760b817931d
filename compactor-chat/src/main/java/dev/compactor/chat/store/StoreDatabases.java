package dev.compactor.chat.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.locks.Lock;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * How every JDBC store of Compactor (the chat store, {@link ConversationStore}, the proxy's store)
 * opens its database: a SQLite file in WAL mode or a PostgreSQL URL with a plain schema name, a
 * connection pool that fails at once when the server refuses, and Flyway migrations, each store's
 * recorded in its own history table when it shares the database with the others. Each store passes
 * its own exception ({@link Failure}), so its errors keep their type and wording. Their writes run
 * in transactions through {@link #inTransaction}.
 */
public final class StoreDatabases {
  private StoreDatabases() {}

  /** A schema name that needs no quoting in SQL. */
  private static final Pattern SCHEMA = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  /** How long a caller waits for a pooled PostgreSQL connection, in milliseconds. */
  public static final long CONNECTION_TIMEOUT_MS = 10_000;

  /**
   * How long opening a TCP connection to PostgreSQL may take, in seconds (a refused connection
   * fails immediately); a {@code connectTimeout} in the URL or properties wins.
   */
  public static final int CONNECT_TIMEOUT_SECONDS = 5;

  /** A store's own exception for an opening that failed. */
  @FunctionalInterface
  public interface Failure {
    RuntimeException of(String message, Throwable cause);
  }

  /** SQL work on a connection inside a transaction the store opened. */
  @FunctionalInterface
  public interface SqlWork<T> {
    T run(Connection c) throws SQLException;
  }

  /**
   * A store that keeps its own Flyway history in a database it may share with the other stores.
   *
   * @param loader the class loader that sees the scripts
   * @param location the {@code classpath:} folder holding one folder of scripts per dialect
   * @param historyTable the store's Flyway history table
   * @param what the database, as errors name it ({@code "proxy database"})
   * @param poolName the start of the pools' names, followed by {@code -sqlite} or {@code
   *     -postgresql}
   * @param failure the store's exception
   */
  public record MigratedStore(
      ClassLoader loader,
      String location,
      String historyTable,
      String what,
      String poolName,
      Failure failure) {
    /**
     * Opens (creating when missing) a SQLite file and migrates it, with the busy timeout of {@link
     * SqliteChatStore#DEFAULT_BUSY_TIMEOUT}.
     */
    public Opened openSqlite(Path file) {
      Path abs = sqliteFile(file, what, failure);
      return open(
          sqlitePool(sqliteConfig(SqliteChatStore.DEFAULT_BUSY_TIMEOUT), abs, poolName + "-sqlite"),
          "sqlite",
          null,
          abs.toString(),
          true);
    }

    /**
     * Connects to PostgreSQL (a pool of 10 connections), creates the schema when missing and
     * migrates it.
     *
     * @param schema the schema, or null for {@code public}
     * @throws IllegalArgumentException when the URL is not a PostgreSQL JDBC URL or the schema is
     *     not a plain identifier
     */
    public Opened openPostgres(String jdbcUrl, Properties properties, String schema) {
      HikariConfig hc = postgresPool(jdbcUrl, properties, schema, poolName + "-postgresql", 10);
      return open(hc, "postgresql", schema(schema), describePostgres(jdbcUrl, schema), false);
    }

    private Opened open(
        HikariConfig hc, String dialect, String schema, String description, boolean sqlite) {
      HikariDataSource ds =
          openMigrated(
              hc, loader, location, historyTable, dialect, schema, what, description, failure);
      return new Opened(ds, description, sqlite);
    }
  }

  /**
   * A store's opened database.
   *
   * @param dataSource its connection pool
   * @param description where the data is, for messages (no password)
   * @param sqlite whether it is a SQLite file (one writer at a time)
   */
  public record Opened(HikariDataSource dataSource, String description, boolean sqlite) {}

  /**
   * Runs {@code work} on {@code c} as one transaction: commits and returns its result, or rolls
   * back and rethrows whatever it threw. Work that rolls back itself leaves nothing to commit.
   */
  public static <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
    c.setAutoCommit(false);
    try {
      T out = work.run(c);
      c.commit();
      return out;
    } catch (SQLException | RuntimeException | Error e) {
      rollbackQuietly(c, e);
      throw e;
    }
  }

  /**
   * Runs {@code work} as one transaction ({@link #inTransaction(Connection, SqlWork)}) on a
   * connection of {@code ds}, holding {@code writeLock} throughout when it is not null.
   */
  public static <T> T inTransaction(DataSource ds, Lock writeLock, SqlWork<T> work)
      throws SQLException {
    if (writeLock != null) {
      writeLock.lock();
    }
    try (Connection c = ds.getConnection()) {
      return inTransaction(c, work);
    } finally {
      if (writeLock != null) {
        writeLock.unlock();
      }
    }
  }

  /** Rolls {@code c} back; a failure to do so is added to {@code cause} as suppressed. */
  public static void rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  /**
   * {@code file}, absolute and normalized, with its directory created when missing.
   *
   * @param what the database, as errors name it ({@code "chat database"})
   */
  public static Path sqliteFile(Path file, String what, Failure failure) {
    Path abs = file.toAbsolutePath().normalize();
    try {
      if (abs.getParent() != null) {
        Files.createDirectories(abs.getParent());
      }
    } catch (IOException e) {
      throw failure.of("cannot create the directory of " + what + " " + abs, e);
    }
    return abs;
  }

  /** SQLite connection settings of a writable store: WAL, synchronous NORMAL, the busy timeout. */
  public static SQLiteConfig sqliteConfig(Duration busyTimeout) {
    SQLiteConfig config = new SQLiteConfig();
    config.setJournalMode(SQLiteConfig.JournalMode.WAL);
    config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
    config.setBusyTimeout((int) Math.min(Integer.MAX_VALUE, busyTimeout.toMillis()));
    return config;
  }

  /**
   * The connection pool of the SQLite file {@code abs} (4 connections, at least 1 open), each
   * connection opened with {@code config}.
   */
  public static HikariConfig sqlitePool(SQLiteConfig config, Path abs, String poolName) {
    SQLiteDataSource sqlite = new SQLiteDataSource(config);
    sqlite.setUrl("jdbc:sqlite:" + abs);
    HikariConfig hc = new HikariConfig();
    hc.setDataSource(sqlite);
    hc.setPoolName(poolName);
    hc.setMaximumPoolSize(4);
    hc.setMinimumIdle(1);
    return hc;
  }

  /**
   * The schema to keep the tables in: {@code schema}, or {@code public} when null.
   *
   * @throws IllegalArgumentException when it is not a plain identifier (letters, digits, _)
   */
  public static String schema(String schema) {
    String s = schema == null ? "public" : schema;
    if (!SCHEMA.matcher(s).matches()) {
      throw new IllegalArgumentException(
          "schema \"" + s + "\" must be a plain identifier (letters, digits, _)");
    }
    return s;
  }

  /**
   * The connection pool of a PostgreSQL database, in {@link #schema(String) schema}: at least 1
   * connection open, a refused or unreachable server failing at once (not after the pool's default
   * 30 s wait for a first connection), {@link #CONNECT_TIMEOUT_SECONDS} unless the properties say.
   *
   * @param properties driver properties ({@code user}, {@code password}, …), or null
   * @throws IllegalArgumentException when the URL is not a PostgreSQL JDBC URL or the schema is not
   *     a plain identifier
   */
  public static HikariConfig postgresPool(
      String jdbcUrl, Properties properties, String schema, String poolName, int maxPoolSize) {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db): " + redact(jdbcUrl));
    }
    String s = schema(schema);
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(jdbcUrl);
    if (properties != null) {
      hc.setDataSourceProperties(properties);
    }
    hc.setPoolName(poolName);
    hc.setMaximumPoolSize(maxPoolSize);
    hc.setMinimumIdle(1);
    hc.setSchema(s);
    hc.setInitializationFailTimeout(1);
    hc.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
    if (properties == null || properties.getProperty("connectTimeout") == null) {
      hc.addDataSourceProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
    }
    return hc;
  }

  /** A PostgreSQL database as messages name it: the URL without its password, and the schema. */
  public static String describePostgres(String jdbcUrl, String schema) {
    return redact(jdbcUrl) + (schema == null ? "" : " schema " + schema(schema));
  }

  /**
   * Starts a pool for {@code hc} and runs {@code migrate} on it; the pool is closed again when
   * migrating fails.
   *
   * @param cannotOpen the start of the error when the pool cannot start, e.g. {@code cannot connect
   *     to the chat database <url>}; the cause's message follows it
   */
  public static HikariDataSource openMigrated(
      HikariConfig hc, String cannotOpen, Consumer<HikariDataSource> migrate, Failure failure) {
    HikariDataSource ds;
    try {
      ds = new HikariDataSource(hc);
    } catch (RuntimeException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw failure.of(cannotOpen + ": " + cause.getMessage(), e);
    }
    try {
      migrate.accept(ds);
    } catch (RuntimeException e) {
      ds.close();
      throw e;
    }
    return ds;
  }

  /**
   * Opens the pool of a store that keeps its own Flyway history in a shared database: {@link
   * #openMigrated} with {@link #migrate} of the scripts under {@code location + dialect}, the
   * errors naming the database as {@code "<what> <description>"}.
   *
   * @param loader the class loader that sees the scripts
   * @param schema the schema (created when missing), or null for the connection's
   */
  public static HikariDataSource openMigrated(
      HikariConfig hc,
      ClassLoader loader,
      String location,
      String historyTable,
      String dialect,
      String schema,
      String what,
      String description,
      Failure failure) {
    return openMigrated(
        hc,
        "cannot open the " + what + " " + description,
        pool ->
            migrate(
                pool,
                loader,
                location + dialect,
                historyTable,
                schema,
                what + " " + description,
                failure),
        failure);
  }

  /**
   * Runs the Flyway migrations under {@code location} (a {@code classpath:} folder holding one
   * folder per dialect) on {@code ds}.
   *
   * @param loader the class loader that sees the scripts
   * @param historyTable the store's own history table, started at version 0 on a database that
   *     already holds other stores' tables; or null for Flyway's default table
   * @param schema the schema (created when missing), or null for the connection's
   * @param what the database, as the error names it
   */
  public static void migrate(
      DataSource ds,
      ClassLoader loader,
      String location,
      String historyTable,
      String schema,
      String what,
      Failure failure) {
    try {
      var config =
          Flyway.configure(loader)
              .dataSource(ds)
              .locations(location)
              .failOnMissingLocations(true)
              // Log through SLF4J like HikariCP: the application's binding decides, none = silent.
              .loggers("slf4j");
      if (historyTable != null) {
        config = config.table(historyTable).baselineOnMigrate(true).baselineVersion("0");
      }
      if (schema != null) {
        config = config.schemas(schema).defaultSchema(schema).createSchemas(true);
      }
      config.load().migrate();
    } catch (FlywayException e) {
      throw failure.of(what + ": schema migration failed: " + e.getMessage(), e);
    }
  }

  /** {@code url} with any password hidden: URL user info and {@code password=} parameters. */
  public static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***")
        .replaceAll("^([^/@]*//)?([^/@:]+):[^/@]*@", "$1$2:***@");
  }
}
