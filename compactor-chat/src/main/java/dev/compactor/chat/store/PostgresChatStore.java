package dev.compactor.chat.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.store.StoreDatabases.SqlWork;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Properties;

/**
 * A {@link ChatStore} in PostgreSQL, for several service instances sharing one database.
 *
 * <p>Design: a call runs in one transaction from start to end. It first makes sure the chat's row
 * exists ({@code INSERT … ON CONFLICT DO NOTHING}), then locks it ({@code SELECT … FOR UPDATE}),
 * reads the history, runs the work (model calls included) and writes the update before committing.
 * Calls on the same chat from any process therefore queue on the row lock and never interleave;
 * calls on other chats are not held up. A failing call rolls back: not even the row of a new chat
 * stays. Within a process the per-chat lock is taken before a pooled connection, so waiting calls
 * do not hold connections.
 *
 * <p>Schema migrations (Flyway, scripts in {@code dev/compactor/chat/store/migration/postgresql})
 * run on open, in the configured schema (created when missing; Flyway's advisory lock keeps
 * instances that start together from migrating twice). Thread-safe.
 */
public final class PostgresChatStore extends JdbcChatStore {
  /** The smallest pool {@value #POOL_SIZE} may ask for: opening migrates, which takes two. */
  public static final int MIN_POOL_SIZE = 2;

  /** The largest pool {@value #POOL_SIZE} may ask for. */
  public static final int MAX_POOL_SIZE = 1000;

  /**
   * The URL query parameter (or driver property) that sets the pool size. Every call on a chat
   * holds one connection for its whole length (the chat's row lock, the model call included), so an
   * instance runs at most this many calls at once; keep instances × pool size under the server's
   * {@code max_connections}.
   */
  public static final String POOL_SIZE = "poolSize";

  /** Connections in the pool by default. */
  public static final int DEFAULT_POOL_SIZE = 10;

  /** How long a caller waits for a pooled connection before the call fails, in milliseconds. */
  public static final long CONNECTION_TIMEOUT_MS = StoreDatabases.CONNECTION_TIMEOUT_MS;

  /**
   * How long opening a TCP connection to the server may take, in seconds (a refused connection
   * fails immediately); a {@code connectTimeout} in the URL or properties wins.
   */
  public static final int CONNECT_TIMEOUT_SECONDS = StoreDatabases.CONNECT_TIMEOUT_SECONDS;

  private final String description;
  private final String schema;

  /** {@value #POOL_SIZE} from the properties or the URL, else {@link #DEFAULT_POOL_SIZE}. */
  static int poolSize(String jdbcUrl, Properties properties, String description) {
    String v = properties == null ? null : properties.getProperty(POOL_SIZE);
    if (v == null) {
      int q = jdbcUrl.indexOf('?');
      if (q >= 0) {
        for (String kv : jdbcUrl.substring(q + 1).split("&")) {
          if (kv.startsWith(POOL_SIZE + "=")) {
            v = kv.substring(POOL_SIZE.length() + 1);
          }
        }
      }
    }
    if (v == null) {
      return DEFAULT_POOL_SIZE;
    }
    try {
      int n = Integer.parseInt(v.strip());
      if (n >= MIN_POOL_SIZE && n <= MAX_POOL_SIZE) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(
        POOL_SIZE
            + "="
            + v
            + " in the chat database URL "
            + description
            + " must be a whole number from "
            + MIN_POOL_SIZE
            + " to "
            + MAX_POOL_SIZE);
  }

  private PostgresChatStore(HikariDataSource ds, String description, String schema) {
    super(ds);
    this.description = description;
    this.schema = schema;
  }

  /**
   * Connects, creates the schema when missing and migrates it.
   *
   * @param jdbcUrl a {@code jdbc:postgresql:} URL
   * @param properties driver properties ({@code user}, {@code password}, …); may be empty
   * @param schema the schema to keep the tables in, or null for {@code public}
   * @throws IllegalArgumentException when the URL is not a PostgreSQL JDBC URL or the schema name
   *     is not a plain identifier
   * @throws ChatStoreException when the database cannot be reached or a migration fails
   */
  public static PostgresChatStore open(String jdbcUrl, Properties properties, String schema) {
    HikariConfig hc =
        StoreDatabases.postgresPool(
            jdbcUrl, properties, schema, "compactor-chat-postgresql", DEFAULT_POOL_SIZE);
    String s = StoreDatabases.schema(schema);
    String description = StoreDatabases.describePostgres(jdbcUrl, schema);
    hc.setMaximumPoolSize(poolSize(jdbcUrl, properties, description));
    HikariDataSource ds =
        StoreDatabases.openMigrated(
            hc,
            "cannot connect to the chat database " + description,
            pool -> Migrations.migrate(pool, "postgresql", s, "chat database " + description),
            ChatStoreException::new);
    return new PostgresChatStore(ds, description, s);
  }

  /** The schema holding the tables. */
  public String schema() {
    return schema;
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  <T> T runLocked(ChatKey key, ChatWork<T> work) throws SQLException {
    return inWriteTransaction(
        c -> {
          boolean created = insertPlaceholder(c, key);
          ChatRecord locked = readRecord(c, key, true);
          ChatSnapshot snapshot = new ChatSnapshot(created ? null : locked, readMessages(c, key));
          ChatWork.Outcome<T> outcome = work.run(snapshot);
          if (outcome.update() == null) {
            c.rollback();
            return outcome.value();
          }
          if (!updateRecord(c, outcome.update().record(), locked.version())) {
            throw new IllegalStateException("chat " + key + " changed under its row lock");
          }
          apply(c, key, snapshot.messages(), outcome.update());
          return outcome.value();
        });
  }

  @Override
  <T> T inWriteTransaction(SqlWork<T> work) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return StoreDatabases.inTransaction(c, work);
    }
  }

  @Override
  boolean rowLocks() {
    return true;
  }

  @Override
  Connection readConnection() throws SQLException {
    Connection c = dataSource.getConnection();
    try {
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      c.setReadOnly(true);
      return c;
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }

  private boolean insertPlaceholder(Connection c, ChatKey key) throws SQLException {
    String sql =
        "INSERT INTO chats (tenant, chat_id, interactions, version, created_at, updated_at)"
            + " VALUES (?, ?, 0, 0, ?, ?) ON CONFLICT (tenant, chat_id) DO NOTHING";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.tenant());
      ps.setString(2, key.chatId());
      setInstant(ps, 3, Instant.EPOCH);
      setInstant(ps, 4, Instant.EPOCH);
      return ps.executeUpdate() == 1;
    }
  }

  @Override
  void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(
          index, OffsetDateTime.ofInstant(value.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC));
    }
  }

  @Override
  Instant getInstant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  @Override
  void setCost(PreparedStatement ps, int index, BigDecimal cost) throws SQLException {
    if (cost == null) {
      ps.setNull(index, Types.NUMERIC);
    } else {
      ps.setBigDecimal(index, cost);
    }
  }

  /** The URL without a password parameter. */
}
