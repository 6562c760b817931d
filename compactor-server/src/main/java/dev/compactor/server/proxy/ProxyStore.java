package dev.compactor.server.proxy;

import com.zaxxer.hikari.HikariDataSource;
import dev.compactor.chat.store.ChatStores;
import dev.compactor.chat.store.StoreDatabases;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The proxy's conversations and their master log, in the service's database: a SQLite file
 * (embedded default) or PostgreSQL (shared by several instances).
 *
 * <p>A conversation row holds what matching and compaction need between stateless requests: the
 * length and chain digest of the last request's items ({@link ItemDigests}), the reply the provider
 * gave to it, and the compacted view the proxy sends in place of the first {@code viewCovered}
 * items. The log holds every item the client sent and every reply, append-only.
 *
 * <p>Migrations are Flyway scripts under {@code dev/compactor/server/proxy/migration/<dialect>},
 * recorded in their own history table {@value #HISTORY_TABLE}, so they live beside the chat store's
 * migrations in the same database without touching them. Open the chat store first on a fresh
 * database: Flyway refuses to start a history in a schema that already holds tables unless told to,
 * which this store is (it baselines at version 0) and the chat store may not be. Thread-safe.
 */
public final class ProxyStore implements AutoCloseable {
  /** The Flyway history table of the proxy's migrations. */
  public static final String HISTORY_TABLE = "proxy_schema_history";

  private static final StoreDatabases.MigratedStore DATABASE =
      new StoreDatabases.MigratedStore(
          ProxyStore.class.getClassLoader(),
          "classpath:dev/compactor/server/proxy/migration/",
          HISTORY_TABLE,
          "proxy database",
          "compactor-proxy",
          ProxyStoreException::new);

  private final HikariDataSource ds;
  private final String description;
  private final boolean sqlite;
  private final ReentrantLock sqliteWrites = new ReentrantLock(true);

  private ProxyStore(StoreDatabases.Opened db) {
    this.ds = db.dataSource();
    this.description = db.description();
    this.sqlite = db.sqlite();
  }

  /**
   * A stored conversation.
   *
   * @param id the proxy's id ({@code conv_…})
   * @param tenant whose it is
   * @param api the wire format ({@link WireApi#name()})
   * @param externalKey the client's {@code X-Compactor-Conversation} value, or null
   * @param forkedFrom the conversation this one forked from, or null
   * @param lastLength items in the last request
   * @param lastDigest the chain digest of those items
   * @param reply the provider's reply to the last request, as the client would echo it, or null
   * @param viewItems the compacted view (a JSON array of the format's items), or null before the
   *     first compaction
   * @param viewSystem Anthropic's {@code system} of the view (JSON), or null
   * @param viewCovered how many client items the view stands for
   * @param compactions compactions so far
   * @param version optimistic-lock version
   */
  public record Conversation(
      String id,
      String tenant,
      String api,
      String externalKey,
      String forkedFrom,
      int lastLength,
      String lastDigest,
      String reply,
      String viewItems,
      String viewSystem,
      int viewCovered,
      int compactions,
      long version) {}

  /**
   * One master-log line.
   *
   * @param kind {@code client} (an item as the client sent it) or {@code reply}
   * @param digest the item's canonical digest
   * @param body the item's JSON
   */
  public record LogEntry(String kind, String digest, String body) {}

  /**
   * What a request adds to its conversation besides the matching state: the facts the API shows and
   * the reminder's state.
   *
   * @param session the client's session header value, or null
   * @param upstream the upstream the last request went to
   * @param model the model the last request named
   * @param tokens tokens of what the proxy sent for the last request
   * @param reminded the compaction count at which the 90 % reminder was sent, or -1
   * @param request the request's journal row, or null to add none
   */
  public record Activity(
      String session, String upstream, String model, long tokens, int reminded, Request request) {
    public Activity(String session, String upstream, String model, long tokens, int reminded) {
      this(session, upstream, model, tokens, reminded, null);
    }
  }

  /**
   * One proxied request of a conversation, as its response headers told the client.
   *
   * @param action {@code none}, {@code masked}, {@code trimmed}, {@code summarized}, {@code
   *     reminded} or {@code recovered} ({@code x-compactor-action})
   * @param tokensBefore {@code x-compactor-tokens-before}, or null when it was not sent
   * @param tokensAfter {@code x-compactor-tokens-after}, or null when it was not sent
   * @param strategy the strategy of the request's compaction, or null when it made none
   * @param trigger what started that compaction ({@code auto}, {@code manual}, {@code overflow}),
   *     or null
   */
  public record Request(
      String action, Long tokensBefore, Long tokensAfter, String strategy, String trigger) {
    public Request {
      java.util.Objects.requireNonNull(action, "action");
    }

    /**
     * The row of a request answered with these headers ({@code -1}: a header not sent) and, when it
     * compacted, that compaction.
     */
    public static Request of(
        String action,
        long tokensBefore,
        long tokensAfter,
        dev.compactor.core.policy.AppliedCompaction compaction) {
      return new Request(
          action,
          tokensBefore < 0 ? null : tokensBefore,
          tokensAfter < 0 ? null : tokensAfter,
          compaction == null ? null : compaction.strategy(),
          compaction == null ? null : compaction.trigger().wireName());
    }
  }

  /**
   * A stored {@link Request}.
   *
   * @param seq its position among the conversation's requests, from 0
   * @param at when it was stored
   * @param replySeq the master-log line of the reply it got, or null when none was stored
   */
  public record RequestRecord(int seq, Instant at, Integer replySeq, Request request) {}

  /**
   * A conversation as the API lists it.
   *
   * @param id the proxy's id
   * @param externalKey the client's {@code X-Compactor-Conversation} value, or null
   * @param session the client's session header value, or null
   * @param api the wire format
   * @param upstream the upstream of the last request (null for conversations stored before it was
   *     recorded)
   * @param model the model of the last request, or null
   * @param forkedFrom the conversation this one forked from, or null
   * @param messages lines of the master log (client items and replies)
   * @param tokens tokens sent on the last request, or null
   * @param compactions compactions so far
   * @param createdAt when it started
   * @param lastActivity its last request
   */
  public record Summary(
      String id,
      String externalKey,
      String session,
      String api,
      String upstream,
      String model,
      String forkedFrom,
      long messages,
      Long tokens,
      int compactions,
      Instant createdAt,
      Instant lastActivity) {}

  /** One page of {@link #list}: the conversations and the cursor of the next page (or null). */
  public record Page(List<Summary> conversations, String next) {}

  /** A master-log line with its position and time. */
  public record LoggedItem(int seq, String kind, String body, Instant createdAt) {}

  // ------------------------------------------------------------------ opening

  /**
   * Opens the store {@code db} names, as {@code --db} gives it: a SQLite path ({@code sqlite:PATH},
   * {@code jdbc:sqlite:PATH}, a plain path) or a PostgreSQL URL ({@code postgresql://…}, {@code
   * jdbc:postgresql://…}, {@code currentSchema} naming the schema).
   *
   * @throws IllegalArgumentException when {@code db} is no such thing (password hidden)
   * @throws ProxyStoreException when the database cannot be opened or migrated
   */
  public static ProxyStore open(String db) {
    return ChatStores.open(db, "database", ProxyStore::openSqlite, ProxyStore::openPostgres);
  }

  /**
   * Opens (creating when missing) a SQLite file and migrates it.
   *
   * @throws ProxyStoreException when the file cannot be opened or migrated
   */
  public static ProxyStore openSqlite(Path file) {
    return new ProxyStore(DATABASE.openSqlite(file));
  }

  /**
   * Connects to PostgreSQL, creates the schema when missing and migrates it.
   *
   * @param schema the schema, or null for {@code public}
   * @throws IllegalArgumentException when the URL is not a PostgreSQL JDBC URL or the schema is not
   *     a plain identifier
   * @throws ProxyStoreException when the database cannot be reached or migrated
   */
  public static ProxyStore openPostgres(String jdbcUrl, Properties properties, String schema) {
    return new ProxyStore(DATABASE.openPostgres(jdbcUrl, properties, schema));
  }

  /** Where the data is, for the startup line (no password). */
  public String describe() {
    return description;
  }

  // ------------------------------------------------------------------ reads

  /** The conversation the client's {@code X-Compactor-Conversation} value names now. */
  public Optional<Conversation> byKey(String tenant, String externalKey) {
    List<Conversation> found =
        query(
            "SELECT * FROM proxy_conversations WHERE tenant = ? AND external_key = ?",
            List.of(tenant, externalKey));
    return found.stream().findFirst();
  }

  /** The conversation with this id, if it is the tenant's. */
  public Optional<Conversation> byId(String tenant, String id) {
    return query(
            "SELECT * FROM proxy_conversations WHERE tenant = ? AND id = ?", List.of(tenant, id))
        .stream()
        .findFirst();
  }

  /**
   * The tenant's conversations of one format whose last request ended in one of {@code digests},
   * most recently updated first.
   */
  public List<Conversation> byLastDigest(String tenant, String api, Collection<String> digests) {
    return byLastDigest(tenant, api, null, digests);
  }

  /**
   * As {@link #byLastDigest(String, String, Collection)}, among the conversations of one client
   * session ({@code session} null: among those without a session).
   */
  public List<Conversation> byLastDigest(
      String tenant, String api, String session, Collection<String> digests) {
    if (digests.isEmpty()) {
      return List.of();
    }
    List<Conversation> out = new ArrayList<>();
    List<String> all = List.copyOf(digests);
    for (int from = 0; from < all.size(); from += 500) {
      List<String> part = all.subList(from, Math.min(all.size(), from + 500));
      List<Object> args = new ArrayList<>(List.of(tenant, api));
      if (session != null) {
        args.add(session);
      }
      args.addAll(part);
      out.addAll(
          query(
              "SELECT * FROM proxy_conversations WHERE tenant = ? AND api = ? AND "
                  + (session == null ? "session_key IS NULL" : "session_key = ?")
                  + " AND last_digest IN ("
                  + String.join(",", java.util.Collections.nCopies(part.size(), "?"))
                  + ")",
              args));
    }
    out.sort((a, b) -> Long.compare(b.version(), a.version()));
    return out;
  }

  /** The session's most recently active conversation of one format, if any. */
  public Optional<Conversation> latestInSession(String tenant, String api, String session) {
    return query(
            "SELECT * FROM proxy_conversations WHERE tenant = ? AND api = ? AND session_key = ?"
                + " ORDER BY updated_at DESC, id DESC LIMIT 1",
            List.of(tenant, api, session))
        .stream()
        .findFirst();
  }

  /** The compaction count at which the 90 % reminder went out in this conversation, or -1. */
  public int reminded(String conversationId) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT reminded FROM proxy_conversations WHERE id = ?")) {
      ps.setString(1, conversationId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : -1;
      }
    } catch (SQLException e) {
      throw failed("reading conversation " + conversationId, e);
    }
  }

  /**
   * The tenant's conversations, most recent activity first, keyset-paged: {@code cursor} is the
   * {@link Page#next()} of the previous page (null for the first); conversations that start or
   * become active while a client pages neither shift nor repeat a page.
   *
   * @throws IllegalArgumentException when {@code cursor} is not one this listing made, or {@code
   *     limit} is not 1 to 1000
   */
  public Page list(String tenant, String cursor, int limit) {
    if (limit < 1 || limit > 1000) {
      throw new IllegalArgumentException("page size " + limit + " is out of range: give 1 to 1000");
    }
    ConversationCursor after = cursor == null ? null : ConversationCursor.decode(cursor);
    List<Object> args = new ArrayList<>(List.of(tenant));
    String where = "c.tenant = ?";
    if (after != null) {
      where += " AND (c.updated_at < ? OR (c.updated_at = ? AND c.id < ?))";
      args.add(after.updatedAt());
      args.add(after.updatedAt());
      args.add(after.id());
    }
    args.add(limit + 1);
    List<Summary> out = summaries(where + " ORDER BY c.updated_at DESC, c.id DESC LIMIT ?", args);
    if (out.size() <= limit) {
      return new Page(out, null);
    }
    List<Summary> page = List.copyOf(out.subList(0, limit));
    Summary last = page.get(limit - 1);
    return new Page(
        page, new ConversationCursor(last.lastActivity().toEpochMilli(), last.id()).encode());
  }

  /** The tenant's conversation {@code id} as the API shows it. */
  public Optional<Summary> summary(String tenant, String id) {
    return summaries("c.tenant = ? AND c.id = ?", List.of(tenant, id)).stream().findFirst();
  }

  private List<Summary> summaries(String where, List<?> args) {
    String sql =
        "SELECT c.id, c.external_key, c.session_key, c.api, c.upstream, c.model, c.forked_from,"
            + " (SELECT COUNT(*) FROM proxy_log l WHERE l.conversation_id = c.id) AS messages,"
            + " c.last_tokens, c.compactions, c.created_at, c.updated_at"
            + " FROM proxy_conversations c WHERE "
            + where;
    return readRows(
        "listing conversations",
        sql,
        args,
        rs -> {
          long tokens = rs.getLong("last_tokens");
          Long t = rs.wasNull() ? null : tokens;
          return new Summary(
              rs.getString("id"),
              rs.getString("external_key"),
              rs.getString("session_key"),
              rs.getString("api"),
              rs.getString("upstream"),
              rs.getString("model"),
              rs.getString("forked_from"),
              rs.getLong("messages"),
              t,
              rs.getInt("compactions"),
              Instant.ofEpochMilli(rs.getLong("created_at")),
              Instant.ofEpochMilli(rs.getLong("updated_at")));
        });
  }

  /** Lines {@code offset} to {@code offset + limit - 1} of a conversation's master log. */
  public List<LoggedItem> logPage(String conversationId, int offset, int limit) {
    return readRows(
        "reading the log of conversation " + conversationId,
        "SELECT seq, kind, body, created_at FROM proxy_log WHERE conversation_id = ?"
            + " ORDER BY seq LIMIT ? OFFSET ?",
        List.of(conversationId, limit, offset),
        rs ->
            new LoggedItem(
                rs.getInt(1),
                rs.getString(2),
                rs.getString(3),
                Instant.ofEpochMilli(rs.getLong(4))));
  }

  /** The master log of a conversation, in order. */
  public List<LogEntry> log(String conversationId) {
    return readRows(
        "reading the log of conversation " + conversationId,
        "SELECT kind, digest, body FROM proxy_log WHERE conversation_id = ? ORDER BY seq",
        List.of(conversationId),
        rs -> new LogEntry(rs.getString(1), rs.getString(2), rs.getString(3)));
  }

  private List<Conversation> query(String sql, List<?> args) {
    return readRows(
        "reading conversations",
        sql,
        args,
        rs ->
            new Conversation(
                rs.getString("id"),
                rs.getString("tenant"),
                rs.getString("api"),
                rs.getString("external_key"),
                rs.getString("forked_from"),
                rs.getInt("last_length"),
                rs.getString("last_digest"),
                rs.getString("reply"),
                rs.getString("view_items"),
                rs.getString("view_system"),
                rs.getInt("view_covered"),
                rs.getInt("compactions"),
                rs.getLong("version")));
  }

  /** A value made of the current row of a result set. */
  @FunctionalInterface
  private interface RowValue<T> {
    T of(ResultSet rs) throws SQLException;
  }

  /**
   * The values of the rows that {@code sql} selects with {@code args} bound in order, read on a
   * connection of their own; {@code what} names the read when it fails.
   */
  private <T> List<T> readRows(String what, String sql, List<?> args, RowValue<T> value) {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.size(); i++) {
        ps.setObject(i + 1, args.get(i));
      }
      List<T> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(value.of(rs));
        }
      }
      return out;
    } catch (SQLException e) {
      throw failed(what, e);
    }
  }

  // ------------------------------------------------------------------ writes

  /**
   * Writes a conversation's new state and appends to its log, in one transaction.
   *
   * @param next the new state; its {@code version} is the one written
   * @param expectedVersion the version read before, or -1 for a new conversation
   * @param releaseKeyOf a conversation whose external key moves to {@code next} (a fork), or null
   * @param appended log lines to add after the ones stored
   * @return false when the conversation changed meanwhile (nothing written)
   * @throws ProxyStoreException when the database fails
   */
  public boolean save(
      Conversation next, long expectedVersion, String releaseKeyOf, List<LogEntry> appended) {
    return save(next, expectedVersion, releaseKeyOf, appended, null);
  }

  /**
   * As {@link #save(Conversation, long, String, List)}, recording the request's {@link Activity}
   * too (null: left as it was; a new conversation then has none).
   */
  public boolean save(
      Conversation next,
      long expectedVersion,
      String releaseKeyOf,
      List<LogEntry> appended,
      Activity activity) {
    try {
      return write(
          c -> {
            long now = System.currentTimeMillis();
            if (releaseKeyOf != null) {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "UPDATE proxy_conversations SET external_key = NULL, updated_at = ? WHERE id = ?")) {
                ps.setLong(1, now);
                ps.setString(2, releaseKeyOf);
                ps.executeUpdate();
              }
            }
            if (expectedVersion < 0) {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "INSERT INTO proxy_conversations (id, tenant, api, external_key, forked_from,"
                          + " last_length, last_digest, reply, view_items, view_system, view_covered,"
                          + " compactions, version, created_at, updated_at)"
                          + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
                ps.setString(1, next.id());
                ps.setString(2, next.tenant());
                ps.setString(3, next.api());
                setText(ps, 4, next.externalKey());
                setText(ps, 5, next.forkedFrom());
                bindState(ps, 6, next);
                ps.setLong(14, now);
                ps.setLong(15, now);
                ps.executeUpdate();
              }
            } else if (activity != null) {
              // the state and the activity in one statement: the common path of a continued request
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "UPDATE proxy_conversations SET last_length = ?, last_digest = ?, reply = ?,"
                          + " view_items = ?, view_system = ?, view_covered = ?, compactions = ?,"
                          + " version = ?, updated_at = ?, session_key = ?, upstream = ?, model = ?,"
                          + " last_tokens = ?, reminded = ? WHERE id = ? AND version = ?")) {
                bindState(ps, 1, next);
                ps.setLong(9, now);
                bindActivity(ps, 10, activity);
                ps.setString(15, next.id());
                ps.setLong(16, expectedVersion);
                if (ps.executeUpdate() != 1) {
                  c.rollback();
                  return false;
                }
              }
            } else {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "UPDATE proxy_conversations SET last_length = ?, last_digest = ?, reply = ?,"
                          + " view_items = ?, view_system = ?, view_covered = ?, compactions = ?,"
                          + " version = ?, updated_at = ? WHERE id = ? AND version = ?")) {
                bindState(ps, 1, next);
                ps.setLong(9, now);
                ps.setString(10, next.id());
                ps.setLong(11, expectedVersion);
                if (ps.executeUpdate() != 1) {
                  c.rollback();
                  return false;
                }
              }
            }
            if (activity != null && expectedVersion < 0) {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "UPDATE proxy_conversations SET session_key = ?, upstream = ?, model = ?,"
                          + " last_tokens = ?, reminded = ? WHERE id = ?")) {
                bindActivity(ps, 1, activity);
                ps.setString(6, next.id());
                ps.executeUpdate();
              }
            }
            int seq = nextSeq(c, "proxy_log", next.id());
            Integer replySeq = null;
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO proxy_log (conversation_id, seq, kind, digest, body, created_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?)")) {
              for (LogEntry e : appended) {
                if (e.kind().equals("reply")) {
                  replySeq = seq;
                }
                ps.setString(1, next.id());
                ps.setInt(2, seq++);
                ps.setString(3, e.kind());
                ps.setString(4, e.digest());
                ps.setString(5, e.body());
                ps.setLong(6, now);
                ps.addBatch();
              }
              ps.executeBatch();
            }
            if (activity != null && activity.request() != null) {
              insertRequest(c, next.id(), activity.request(), now, replySeq);
            }
            return true;
          });
    } catch (SQLException e) {
      if (expectedVersion < 0 && isUniqueViolation(e)) {
        return false;
      }
      throw failed("saving conversation " + next.id(), e);
    }
  }

  /** Runs {@code work} in one write transaction; on SQLite this process's writers take turns. */
  private <T> T write(StoreDatabases.SqlWork<T> work) throws SQLException {
    return StoreDatabases.inTransaction(ds, sqlite ? sqliteWrites : null, work);
  }

  private static void insertRequest(Connection c, String id, Request r, long now, Integer replySeq)
      throws SQLException {
    int seq = nextSeq(c, "proxy_requests", id);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO proxy_requests (conversation_id, seq, created_at, action, tokens_before,"
                + " tokens_after, strategy, trigger_kind, reply_seq)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, seq);
      ps.setLong(3, now);
      ps.setString(4, r.action());
      setLong(ps, 5, r.tokensBefore());
      setLong(ps, 6, r.tokensAfter());
      setText(ps, 7, r.strategy());
      setText(ps, 8, r.trigger());
      if (replySeq == null) {
        ps.setNull(9, java.sql.Types.INTEGER);
      } else {
        ps.setInt(9, replySeq);
      }
      ps.executeUpdate();
    }
  }

  /** The {@code seq} after the last of the conversation's rows in {@code table}, 0 for none. */
  private static int nextSeq(Connection c, String table, String conversationId)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COALESCE(MAX(seq), -1) FROM " + table + " WHERE conversation_id = ?")) {
      ps.setString(1, conversationId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1) + 1;
      }
    }
  }

  private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(i, java.sql.Types.BIGINT);
    } else {
      ps.setLong(i, v);
    }
  }

  /** The conversation's requests, oldest first (none for requests stored before they were). */
  public List<RequestRecord> requests(String conversationId) {
    return readRows(
        "reading the requests of conversation " + conversationId,
        "SELECT seq, created_at, action, tokens_before, tokens_after, strategy,"
            + " trigger_kind, reply_seq FROM proxy_requests WHERE conversation_id = ?"
            + " ORDER BY seq",
        List.of(conversationId),
        rs -> {
          long before = rs.getLong(4);
          Long tokensBefore = rs.wasNull() ? null : before;
          long after = rs.getLong(5);
          Long tokensAfter = rs.wasNull() ? null : after;
          int reply = rs.getInt(8);
          Integer replySeq = rs.wasNull() ? null : reply;
          return new RequestRecord(
              rs.getInt(1),
              Instant.ofEpochMilli(rs.getLong(2)),
              replySeq,
              new Request(
                  rs.getString(3), tokensBefore, tokensAfter, rs.getString(6), rs.getString(7)));
        });
  }

  /** Deletes a conversation of the tenant, its log and its requests; false when there is none. */
  public boolean delete(String tenant, String id) {
    try {
      return write(
          c -> {
            int n;
            try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM proxy_conversations WHERE tenant = ? AND id = ?")) {
              ps.setString(1, tenant);
              ps.setString(2, id);
              n = ps.executeUpdate();
            }
            if (n > 0) {
              for (String table : new String[] {"proxy_log", "proxy_requests"}) {
                try (PreparedStatement ps =
                    c.prepareStatement("DELETE FROM " + table + " WHERE conversation_id = ?")) {
                  ps.setString(1, id);
                  ps.executeUpdate();
                }
              }
            }
            return n > 0;
          });
    } catch (SQLException e) {
      throw failed("deleting conversation " + id, e);
    }
  }

  /**
   * Deletes every conversation (of any tenant) whose last activity is before {@code cutoff}, with
   * its log and requests, in transactions of at most 500 conversations. A request in flight on a
   * conversation deleted meanwhile does not bring it back half: its save finds the conversation
   * gone and stores the request whole as a new conversation.
   *
   * @return how many conversations were deleted
   * @throws ProxyStoreException when the database fails
   */
  public int deleteInactiveBefore(Instant cutoff) {
    int total = 0;
    while (true) {
      int n = deleteBatch(cutoff.toEpochMilli(), 500);
      total += n;
      if (n < 500) {
        return total;
      }
    }
  }

  private int deleteBatch(long cutoff, int batch) {
    try {
      return write(
          c -> {
            // RETURNING names exactly the rows deleted: on PostgreSQL a row a concurrent request
            // updated meanwhile is re-checked against the cutoff after its lock and kept.
            List<String> ids = new ArrayList<>();
            try (PreparedStatement ps =
                c.prepareStatement(
                    "DELETE FROM proxy_conversations WHERE id IN (SELECT id FROM proxy_conversations"
                        + " WHERE updated_at < ? LIMIT ?) AND updated_at < ? RETURNING id")) {
              ps.setLong(1, cutoff);
              ps.setInt(2, batch);
              ps.setLong(3, cutoff);
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  ids.add(rs.getString(1));
                }
              }
            }
            for (String table : new String[] {"proxy_log", "proxy_requests"}) {
              try (PreparedStatement ps =
                  c.prepareStatement("DELETE FROM " + table + " WHERE conversation_id = ?")) {
                for (String id : ids) {
                  ps.setString(1, id);
                  ps.addBatch();
                }
                if (!ids.isEmpty()) {
                  ps.executeBatch();
                }
              }
            }
            return ids.size();
          });
    } catch (SQLException e) {
      throw failed("deleting conversations inactive since " + Instant.ofEpochMilli(cutoff), e);
    }
  }

  private static void bindState(PreparedStatement ps, int at, Conversation n) throws SQLException {
    ps.setInt(at, n.lastLength());
    ps.setString(at + 1, n.lastDigest());
    setText(ps, at + 2, n.reply());
    setText(ps, at + 3, n.viewItems());
    setText(ps, at + 4, n.viewSystem());
    ps.setInt(at + 5, n.viewCovered());
    ps.setInt(at + 6, n.compactions());
    ps.setLong(at + 7, n.version());
  }

  private static void bindActivity(PreparedStatement ps, int at, Activity a) throws SQLException {
    setText(ps, at, a.session());
    setText(ps, at + 1, a.upstream());
    setText(ps, at + 2, a.model());
    ps.setLong(at + 3, a.tokens());
    ps.setInt(at + 4, a.reminded());
  }

  private static void setText(PreparedStatement ps, int i, String v) throws SQLException {
    if (v == null) {
      ps.setNull(i, Types.VARCHAR);
    } else {
      ps.setString(i, v);
    }
  }

  private static boolean isUniqueViolation(SQLException e) {
    String state = e.getSQLState();
    String msg = String.valueOf(e.getMessage());
    return "23505".equals(state) || msg.contains("UNIQUE constraint failed");
  }

  private ProxyStoreException failed(String what, SQLException e) {
    return new ProxyStoreException(
        "proxy database " + description + ": " + what + " failed: " + e.getMessage(), e);
  }

  @Override
  public void close() {
    ds.close();
  }

  /** {@code url} with any password hidden (user info and {@code password=} parameters). */
  /** The proxy database failed. */
  public static final class ProxyStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ProxyStoreException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
