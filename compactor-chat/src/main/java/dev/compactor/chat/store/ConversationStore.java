package dev.compactor.chat.store;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Compactor conversations in a database — a SQLite file or PostgreSQL — for memories that must
 * outlive their process: each conversation's lossless master log, its compacted views (the last one
 * active), its compaction journal and its system message. What a conversation directory of {@code
 * compactor-log} holds on disk, in tables, so that several service instances can share one
 * PostgreSQL database. The framework adapters' memories open their conversations here.
 *
 * <p>Opened from the same strings as {@link ChatStores#open}: a SQLite path ({@code sqlite:PATH},
 * {@code jdbc:sqlite:PATH}, a plain path) or a PostgreSQL URL ({@code postgresql://…}, {@code
 * jdbc:postgresql://…}, {@code currentSchema} naming the schema). It may share the database of a
 * chat store or the proxy's: its Flyway migrations ({@code
 * dev/compactor/chat/store/conversation/<dialect>}) are recorded in their own history table {@value
 * #HISTORY_TABLE} and touch only the {@code conversation*} tables. On a fresh database open the
 * chat store first when both are wanted (Flyway starts the chat store's history only in an empty
 * schema; this store baselines at version 0 in a non-empty one).
 *
 * <p>{@link #conversation} reads a conversation into a {@link DatabaseConversation}, which writes
 * every change before it returns. Two instances on the same conversation (two processes, or two
 * opens in one) never overwrite each other: the later writer's append or view switch fails with
 * {@link ConversationConflictException} and stores nothing, so one memory per conversation should
 * write at a time (calls on one chat are usually routed to one instance; reopen after a conflict).
 *
 * <p>Thread-safe.
 *
 * <pre>{@code
 * try (ConversationStore store = ConversationStore.open("postgresql://app@db/app")) {
 *   DatabaseConversation c = store.conversation("user-42");
 *   Compactor.Session session = compactor.session(c);
 *   session.append(Message.user("hello"));
 * }
 * }</pre>
 */
public final class ConversationStore implements AutoCloseable {
  /** The Flyway history table of this store's migrations. */
  public static final String HISTORY_TABLE = "conversation_schema_history";

  /** Longest conversation id. */
  public static final int MAX_ID_LENGTH = 512;

  private static final StoreDatabases.MigratedStore DATABASE =
      new StoreDatabases.MigratedStore(
          ConversationStore.class.getClassLoader(),
          "classpath:dev/compactor/chat/store/conversation/",
          HISTORY_TABLE,
          "conversation database",
          "compactor-conversations",
          ChatStoreException::new);

  private final HikariDataSource ds;
  private final String description;
  private final boolean sqlite;
  private final ReentrantLock sqliteWrites = new ReentrantLock(true);

  private ConversationStore(StoreDatabases.Opened db) {
    this.ds = db.dataSource();
    this.description = db.description();
    this.sqlite = db.sqlite();
  }

  /**
   * Opens the store {@code db} names (see the class comment), creating and migrating its tables.
   *
   * @throws IllegalArgumentException when {@code db} is blank or neither a SQLite path nor a
   *     PostgreSQL URL (password hidden)
   * @throws ChatStoreException when the database cannot be opened or migrated
   */
  public static ConversationStore open(String db) {
    return ChatStores.open(
        db,
        "conversation database",
        ConversationStore::openSqlite,
        ConversationStore::openPostgres);
  }

  /**
   * Opens (creating when missing) a SQLite file and migrates it.
   *
   * @throws ChatStoreException when the file cannot be created, opened or migrated
   */
  public static ConversationStore openSqlite(Path file) {
    return new ConversationStore(DATABASE.openSqlite(file));
  }

  /**
   * Connects to PostgreSQL, creates the schema when missing and migrates it.
   *
   * @param schema the schema, or null for {@code public}
   * @throws IllegalArgumentException when the URL is not a PostgreSQL JDBC URL or the schema is not
   *     a plain identifier
   * @throws ChatStoreException when the database cannot be reached or migrated
   */
  public static ConversationStore openPostgres(
      String jdbcUrl, Properties properties, String schema) {
    return new ConversationStore(DATABASE.openPostgres(jdbcUrl, properties, schema));
  }

  /**
   * The conversation with this id, read from the database: its log, views, journal and system
   * message, or an empty conversation when none is stored (nothing is written until its first
   * change).
   *
   * @throws IllegalArgumentException when the id is blank or longer than {@value #MAX_ID_LENGTH}
   * @throws ChatStoreException when the database fails or a stored row cannot be read
   */
  public DatabaseConversation conversation(String id) {
    checkId(id);
    return DatabaseConversation.load(this, id);
  }

  /**
   * The ids of the stored conversations (those with at least one change), sorted.
   *
   * @throws ChatStoreException when the database fails
   */
  public List<String> ids() {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT id FROM conversations ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      List<String> out = new ArrayList<>();
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      throw failed("listing conversations", e);
    }
  }

  /**
   * Deletes a conversation: its log, views, journal and system message, in one transaction. An
   * instance still open on it fails its next write with {@link ConversationConflictException}.
   *
   * @return whether it was stored
   * @throws ChatStoreException when the database fails (nothing is deleted then)
   */
  public boolean delete(String id) {
    checkId(id);
    return write(
        "deleting conversation " + id,
        c -> {
          for (String table :
              List.of("conversation_messages", "conversation_views", "conversation_compactions")) {
            try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM " + table + " WHERE conversation_id = ?")) {
              ps.setString(1, id);
              ps.executeUpdate();
            }
          }
          try (PreparedStatement ps =
              c.prepareStatement("DELETE FROM conversations WHERE id = ?")) {
            ps.setString(1, id);
            return ps.executeUpdate() > 0;
          }
        });
  }

  /** Where the data is, for messages (no password). */
  public String describe() {
    return description;
  }

  /** Releases the connections. Idempotent. */
  @Override
  public void close() {
    ds.close();
  }

  // ------------------------------------------------------------------ for DatabaseConversation

  /** Runs {@code work} in a read transaction (one snapshot). */
  <T> T read(String what, StoreDatabases.SqlWork<T> work) {
    try {
      return StoreDatabases.inTransaction(ds, null, work);
    } catch (SQLException e) {
      throw failed(what, e);
    }
  }

  /**
   * Runs {@code work} in one write transaction; a unique-key violation (another writer got there
   * first) becomes a {@link ConversationConflictException}.
   */
  <T> T write(String what, StoreDatabases.SqlWork<T> work) {
    try {
      return StoreDatabases.inTransaction(ds, sqlite ? sqliteWrites : null, work);
    } catch (SQLException e) {
      if (isUniqueViolation(e)) {
        throw new ConversationConflictException(
            "conversation database "
                + description
                + ": "
                + what
                + " failed: the conversation changed in the database since it was read (another"
                + " writer); nothing was stored, reopen the conversation",
            e);
      }
      throw failed(what, e);
    }
  }

  ChatStoreException failed(String what, Exception e) {
    return new ChatStoreException(
        "conversation database " + description + ": " + what + " failed: " + e.getMessage(), e);
  }

  private static boolean isUniqueViolation(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException s) {
        String state = s.getSQLState();
        String msg = String.valueOf(s.getMessage());
        if ("23505".equals(state)
            || msg.contains("UNIQUE constraint failed")
            || msg.contains("PRIMARYKEY")
            || msg.contains("SQLITE_CONSTRAINT_PRIMARYKEY")
            || msg.contains("SQLITE_CONSTRAINT_UNIQUE")) {
          return true;
        }
      }
    }
    return false;
  }

  private static void checkId(String id) {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("conversation id must not be blank");
    }
    if (id.length() > MAX_ID_LENGTH) {
      throw new IllegalArgumentException(
          "conversation id of "
              + id.length()
              + " characters is longer than "
              + MAX_ID_LENGTH
              + ": "
              + id.substring(0, 40)
              + "…");
    }
  }
}
