package dev.compactor.chat.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.store.StoreDatabases.SqlWork;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteErrorCode;

/**
 * A {@link ChatStore} in one SQLite file: the embedded default.
 *
 * <p>Design: the file runs in WAL mode, so reads never wait for the writer. A call reads its chat
 * in a short read transaction and runs its work (model calls included) holding only the in-process
 * per-chat lock; calls on other chats proceed in parallel. Its update is then written in one short
 * {@code BEGIN IMMEDIATE} transaction (SQLite has one writer per file; an in-process lock orders
 * this process's writers, the busy timeout other processes'). The write checks that the chat's
 * {@code version} is still the one read: when another process changed the chat meanwhile, the call
 * fails with {@link ChatTaskException.Code#CONFLICT} and stores nothing. So calls on one chat never
 * interleave; within a process they queue, across processes the later one is refused. Use {@link
 * PostgresChatStore} when several processes serve the same chats.
 *
 * <p>Schema migrations (Flyway, {@code db/migration} scripts in {@code
 * dev/compactor/chat/store/migration/sqlite}) run on open. Thread-safe.
 */
public final class SqliteChatStore extends JdbcChatStore {
  /** How long a write waits for another process's write transaction. */
  public static final Duration DEFAULT_BUSY_TIMEOUT = Duration.ofSeconds(30);

  private static final DateTimeFormatter INSTANT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final Path file;
  private final ReentrantLock writeLock = new ReentrantLock(true);

  private final boolean readOnly;

  private SqliteChatStore(Path file, HikariDataSource ds, boolean readOnly) {
    super(ds);
    this.file = file;
    this.readOnly = readOnly;
  }

  /**
   * Opens (creating when missing) the database file and migrates its schema.
   *
   * @throws ChatStoreException when the file cannot be created or opened, or a migration fails
   */
  public static SqliteChatStore open(Path file) {
    return open(file, DEFAULT_BUSY_TIMEOUT);
  }

  /**
   * As {@link #open(Path)}, waiting at most {@code busyTimeout} for other processes' writes.
   *
   * @throws ChatStoreException when the file cannot be created or opened, or a migration fails
   */
  public static SqliteChatStore open(Path file, Duration busyTimeout) {
    Path abs = StoreDatabases.sqliteFile(file, "chat database", ChatStoreException::new);
    SQLiteConfig config = StoreDatabases.sqliteConfig(busyTimeout);
    config.enforceForeignKeys(true);
    config.setTransactionMode(SQLiteConfig.TransactionMode.DEFERRED);
    HikariDataSource ds =
        StoreDatabases.openMigrated(
            StoreDatabases.sqlitePool(config, abs, "compactor-chat-sqlite"),
            "cannot open chat database " + abs,
            pool -> Migrations.migrate(pool, "sqlite", null, "chat database " + abs),
            ChatStoreException::new);
    return new SqliteChatStore(abs, ds, false);
  }

  /**
   * Opens an existing database file for reading only: nothing is created, migrated or written (the
   * file's bytes and modification time stay as they are), and every update fails.
   *
   * @throws ChatStoreException when the file does not exist or cannot be opened
   */
  public static SqliteChatStore openReadOnly(Path file) {
    Path abs = file.toAbsolutePath().normalize();
    if (!Files.isRegularFile(abs)) {
      throw new ChatStoreException("no chat database at " + abs);
    }
    SQLiteConfig config = new SQLiteConfig();
    config.setReadOnly(true);
    config.enforceForeignKeys(true);
    config.setBusyTimeout((int) Math.min(Integer.MAX_VALUE, DEFAULT_BUSY_TIMEOUT.toMillis()));
    config.setTransactionMode(SQLiteConfig.TransactionMode.DEFERRED);
    SQLiteDataSource sqlite = new SQLiteDataSource(config);
    // Without a -wal file no writer has the database open and everything is in the file itself:
    // read it as immutable, so not even the -wal and -shm files a WAL database otherwise needs are
    // created. With one, share the writer's (SQLite creates nothing new then).
    boolean writerFiles = Files.exists(Path.of(abs + "-wal"));
    sqlite.setUrl(
        "jdbc:sqlite:file:"
            + abs.toUri().getRawPath()
            + (writerFiles ? "?mode=ro" : "?mode=ro&immutable=1"));
    HikariConfig hc = new HikariConfig();
    hc.setDataSource(sqlite);
    hc.setPoolName("compactor-chat-sqlite-read-only");
    hc.setMaximumPoolSize(2);
    hc.setMinimumIdle(1);
    hc.setReadOnly(true);
    try {
      return new SqliteChatStore(abs, new HikariDataSource(hc), true);
    } catch (RuntimeException e) {
      throw new ChatStoreException(
          "cannot open chat database " + abs + " for reading: " + e.getMessage(), e);
    }
  }

  /** The database file. */
  public Path file() {
    return file;
  }

  @Override
  public String describe() {
    return file.toString();
  }

  @Override
  <T> T runLocked(ChatKey key, ChatWork<T> work) throws SQLException {
    ChatSnapshot snapshot;
    try (Connection c = dataSource.getConnection()) {
      mode(c, SQLiteConfig.TransactionMode.DEFERRED);
      snapshot =
          StoreDatabases.inTransaction(
              c, tx -> new ChatSnapshot(readRecord(tx, key, false), readMessages(tx, key)));
    }
    ChatWork.Outcome<T> outcome = work.run(snapshot);
    if (outcome.update() == null) {
      return outcome.value();
    }
    inWriteTransaction(
        c -> {
          write(c, key, snapshot, outcome.update());
          return null;
        });
    return outcome.value();
  }

  /**
   * One {@code BEGIN IMMEDIATE} transaction: this process's writers queue on the write lock, other
   * processes' on the busy timeout.
   */
  @Override
  <T> T inWriteTransaction(SqlWork<T> work) throws SQLException {
    writeLock.lock();
    try (Connection c = dataSource.getConnection()) {
      mode(c, SQLiteConfig.TransactionMode.IMMEDIATE);
      try {
        return StoreDatabases.inTransaction(c, work);
      } finally {
        mode(c, SQLiteConfig.TransactionMode.DEFERRED);
      }
    } finally {
      writeLock.unlock();
    }
  }

  @Override
  boolean rowLocks() {
    return false;
  }

  @Override
  boolean readOnly() {
    return readOnly;
  }

  private void write(Connection c, ChatKey key, ChatSnapshot snapshot, ChatUpdate u)
      throws SQLException {
    if (snapshot.record() == null) {
      try {
        insertRecord(c, u.record(), 1);
      } catch (SQLException e) {
        if ((e.getErrorCode() & 0xff) == SQLiteErrorCode.SQLITE_CONSTRAINT.code) {
          throw conflict(key);
        }
        throw e;
      }
      apply(c, key, List.of(), u);
    } else {
      if (!updateRecord(c, u.record(), snapshot.record().version())) {
        throw conflict(key);
      }
      apply(c, key, snapshot.messages(), u);
    }
  }

  private static ChatTaskException conflict(ChatKey key) {
    return new ChatTaskException(
        ChatTaskException.Code.CONFLICT,
        "chat "
            + key
            + " was changed by another process while this call ran; nothing of this call was"
            + " stored (retry it, or use PostgreSQL to queue calls across processes)");
  }

  private static void mode(Connection c, SQLiteConfig.TransactionMode mode) throws SQLException {
    c.unwrap(SQLiteConnection.class).getConnectionConfig().setTransactionMode(mode);
  }

  @Override
  void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.VARCHAR);
    } else {
      ps.setString(index, INSTANT.format(value.truncatedTo(ChronoUnit.MICROS)));
    }
  }

  @Override
  Instant getInstant(ResultSet rs, String column) throws SQLException {
    String s = rs.getString(column);
    return s == null ? null : Instant.parse(s);
  }

  @Override
  void setCost(PreparedStatement ps, int index, BigDecimal cost) throws SQLException {
    if (cost == null) {
      ps.setNull(index, Types.VARCHAR);
    } else {
      ps.setString(index, cost.toPlainString());
    }
  }
}
