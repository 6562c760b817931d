package dev.compactor.chat.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.compactor.chat.auth.KeyStore;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.store.StoreDatabases.SqlWork;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.wire.json.Json;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The SQL both stores share: reading and writing chat rows, histories, the archive and summary
 * records. Subclasses decide how a chat is held across a call ({@link #runLocked}) and how instants
 * are stored. Every write goes through {@link #apply} inside the subclass's transaction.
 */
abstract class JdbcChatStore implements ChatStore {
  protected final HikariDataSource dataSource;
  private final ChatLocks locks = new ChatLocks();

  JdbcChatStore(HikariDataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public final <T> T update(ChatKey key, ChatWork<T> work) {
    try (ChatLocks.Held held = locks.lock(key)) {
      return runLocked(key, work);
    } catch (SQLException e) {
      throw new ChatStoreException(
          "chat store " + describe() + ": update of chat " + key + " failed: " + e.getMessage(), e);
    }
  }

  /** Runs the work with the chat held (the in-process lock is already taken). */
  abstract <T> T runLocked(ChatKey key, ChatWork<T> work) throws SQLException;

  abstract void setInstant(PreparedStatement ps, int index, Instant value) throws SQLException;

  abstract Instant getInstant(ResultSet rs, String column) throws SQLException;

  int lockEntries() {
    return locks.size();
  }

  // ------------------------------------------------------------------ reads

  @Override
  public Optional<ChatSnapshot> find(ChatKey key) {
    try {
      // One read transaction: the record and the history come from the same snapshot.
      return inReadTransaction(
          c -> {
            ChatRecord r = readRecord(c, key, false);
            return r == null
                ? Optional.<ChatSnapshot>empty()
                : Optional.of(new ChatSnapshot(r, readMessages(c, key)));
          });
    } catch (SQLException e) {
      throw failed("reading chat " + key, e);
    }
  }

  /** A connection for reads outside a call; subclasses may adjust its transaction mode. */
  Connection readConnection() throws SQLException {
    return dataSource.getConnection();
  }

  @Override
  public List<CallRecord> calls(ChatKey key) {
    String sql =
        "SELECT called_at, model, api, submitted, tokens_before, tokens_after,"
            + " message_count_before, message_count_after, compaction FROM chat_calls"
            + " WHERE tenant = ? AND chat_id = ? ORDER BY id";
    return readRows(
        "reading calls of chat " + key,
        sql,
        key,
        rs -> {
          long before = rs.getLong("tokens_before");
          Long tokensBefore = rs.wasNull() ? null : before;
          long after = rs.getLong("tokens_after");
          Long tokensAfter = rs.wasNull() ? null : after;
          return new CallRecord(
              getInstant(rs, "called_at"),
              rs.getString("model"),
              rs.getString("api"),
              rs.getBoolean("submitted"),
              tokensBefore,
              tokensAfter,
              rs.getInt("message_count_before"),
              rs.getInt("message_count_after"),
              CallRecord.readReport(rs.getString("compaction")));
        });
  }

  @Override
  public List<SummaryRecord> summaries(ChatKey key) {
    String sql =
        "SELECT uuid, created_at, triggered_by, model, covered_message_ids,"
            + " message_count_before, message_count_after, summary_message_id, summary_text,"
            + " input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,"
            + " reasoning_tokens, cost_usd FROM summaries WHERE tenant = ? AND chat_id = ?"
            + " ORDER BY created_at, uuid";
    return readRows(
        "reading summaries of chat " + key,
        sql,
        key,
        rs -> {
          List<String> covered = new ArrayList<>();
          for (JsonNode n : Json.MAPPER.readTree(rs.getString("covered_message_ids"))) {
            covered.add(n.asText());
          }
          String cost = rs.getString("cost_usd");
          return new SummaryRecord(
              rs.getString("uuid"),
              key,
              getInstant(rs, "created_at"),
              SummaryRecord.Trigger.parse(rs.getString("triggered_by")),
              rs.getString("model"),
              covered,
              rs.getInt("message_count_before"),
              rs.getInt("message_count_after"),
              rs.getString("summary_message_id"),
              rs.getString("summary_text"),
              new Usage(
                  rs.getLong("input_tokens"),
                  rs.getLong("output_tokens"),
                  rs.getLong("cache_read_tokens"),
                  rs.getLong("cache_write_tokens"),
                  rs.getLong("reasoning_tokens")),
              cost == null ? null : new BigDecimal(cost).stripTrailingZeros());
        });
  }

  @Override
  public List<ArchivedMessage> archivedMessages(ChatKey key) {
    String sql =
        "SELECT body, reason, summary_uuid, archived_at FROM archived_messages"
            + " WHERE tenant = ? AND chat_id = ? ORDER BY id";
    return readRows("reading the archive of chat " + key, sql, key, this::archivedFrom);
  }

  /** A value made of the current row of a result set. */
  @FunctionalInterface
  private interface RowValue<T> {
    T of(ResultSet rs) throws SQLException, JsonProcessingException;
  }

  /**
   * The values of the rows that {@code sql} selects about chat {@code key} (its two parameters are
   * the chat's tenant and id), read on a read connection of their own; {@code what} names the read
   * when it fails.
   */
  private <T> List<T> readRows(String what, String sql, ChatKey key, RowValue<T> value) {
    try (Connection c = readConnection()) {
      List<T> out = new ArrayList<>();
      eachRow(c, sql, key, List.of(), rs -> out.add(value.of(rs)));
      return out;
    } catch (SQLException | JsonProcessingException e) {
      throw failed(what, e);
    }
  }

  ChatRecord readRecord(Connection c, ChatKey key, boolean forUpdate) throws SQLException {
    String sql =
        "SELECT settings, model, interactions, last_prompt_tokens, last_completion_tokens,"
            + " version, created_at, updated_at FROM chats WHERE tenant = ? AND chat_id = ?"
            + (forUpdate ? " FOR UPDATE" : "");
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.tenant());
      ps.setString(2, key.chatId());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? recordFrom(rs, key) : null;
      }
    }
  }

  /** The record in the current row of {@code rs}, which has the columns of {@code chats}. */
  ChatRecord recordFrom(ResultSet rs, ChatKey key) throws SQLException {
    long prompt = rs.getLong("last_prompt_tokens");
    Long lastPrompt = rs.wasNull() ? null : prompt;
    long completion = rs.getLong("last_completion_tokens");
    Long lastCompletion = rs.wasNull() ? null : completion;
    return new ChatRecord(
        key,
        rs.getString("settings"),
        rs.getString("model"),
        rs.getLong("interactions"),
        lastPrompt,
        lastCompletion,
        rs.getLong("version"),
        getInstant(rs, "created_at"),
        getInstant(rs, "updated_at"));
  }

  List<Message> readMessages(Connection c, ChatKey key) throws SQLException {
    String sql = "SELECT body FROM messages WHERE tenant = ? AND chat_id = ? ORDER BY seq";
    List<Message> out = new ArrayList<>();
    eachRow(c, sql, key, List.of(), rs -> out.add(StoredMessages.read(rs.getString(1))));
    return out;
  }

  // ------------------------------------------------------------------ listing, paging, deletion

  /** Runs {@code work} in one read transaction (one snapshot of the database), then commits. */
  <T> T inReadTransaction(SqlWork<T> work) throws SQLException {
    try (Connection c = readConnection()) {
      return StoreDatabases.inTransaction(c, work);
    }
  }

  /**
   * Runs {@code work} on a pooled connection in auto-commit mode: one statement, no transaction.
   */
  <T> T autoCommit(SqlWork<T> work) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return work.run(c);
    }
  }

  /** Runs {@code work} in one write transaction, then commits; rolls back when it throws. */
  abstract <T> T inWriteTransaction(SqlWork<T> work) throws SQLException;

  /** Whether {@code SELECT … FOR UPDATE} locks rows (PostgreSQL; SQLite locks the whole file). */
  abstract boolean rowLocks();

  private static final String OVERVIEW_COLUMNS =
      "c.chat_id, c.settings, c.model, c.interactions, c.last_prompt_tokens,"
          + " c.last_completion_tokens, c.version, c.created_at, c.updated_at,"
          + " (SELECT COUNT(*) FROM messages m WHERE m.tenant = c.tenant AND m.chat_id = c.chat_id)"
          + " AS message_count,"
          + " (SELECT COUNT(*) FROM archived_messages a"
          + " WHERE a.tenant = c.tenant AND a.chat_id = c.chat_id) AS archived_count,"
          + " (SELECT COUNT(*) FROM summaries s WHERE s.tenant = c.tenant AND s.chat_id = c.chat_id)"
          + " AS summary_count";

  private ChatOverview overviewFrom(ResultSet rs, String tenant) throws SQLException {
    ChatKey key = new ChatKey(tenant, rs.getString("chat_id"));
    return new ChatOverview(
        recordFrom(rs, key),
        rs.getInt("message_count"),
        rs.getInt("archived_count"),
        rs.getInt("summary_count"));
  }

  static void checkLimit(int limit) {
    if (limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new IllegalArgumentException(
          "page size " + limit + " is out of range: give 1 to " + MAX_PAGE_SIZE);
    }
  }

  @Override
  public ChatPage listChats(String tenant, String cursor, int limit) {
    ChatKey.requireTenant(tenant);
    checkLimit(limit);
    ChatCursor after = cursor == null ? null : ChatCursor.decode(cursor);
    String sql =
        "SELECT "
            + OVERVIEW_COLUMNS
            + " FROM chats c WHERE c.tenant = ?"
            + (after == null
                ? ""
                : " AND (c.updated_at < ? OR (c.updated_at = ? AND c.chat_id < ?))")
            + " ORDER BY c.updated_at DESC, c.chat_id DESC LIMIT ?";
    try {
      return inReadTransaction(
          c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
              int i = 1;
              ps.setString(i++, tenant);
              if (after != null) {
                setInstant(ps, i++, after.updatedAt());
                setInstant(ps, i++, after.updatedAt());
                ps.setString(i++, after.chatId());
              }
              ps.setInt(i, limit + 1);
              List<ChatOverview> out = new ArrayList<>();
              try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                  out.add(overviewFrom(rs, tenant));
                }
              }
              if (out.size() <= limit) {
                return new ChatPage(out, null);
              }
              List<ChatOverview> page = out.subList(0, limit);
              ChatRecord last = page.get(limit - 1).record();
              return new ChatPage(
                  page, new ChatCursor(last.updatedAt(), last.key().chatId()).encode());
            }
          });
    } catch (SQLException e) {
      throw failed("listing the chats of tenant " + tenant, e);
    }
  }

  @Override
  public Optional<ChatOverview> overview(ChatKey key) {
    String sql =
        "SELECT " + OVERVIEW_COLUMNS + " FROM chats c WHERE c.tenant = ? AND c.chat_id = ?";
    try {
      return inReadTransaction(
          c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
              ps.setString(1, key.tenant());
              ps.setString(2, key.chatId());
              try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(overviewFrom(rs, key.tenant())) : Optional.empty();
              }
            }
          });
    } catch (SQLException e) {
      throw failed("reading chat " + key, e);
    }
  }

  @Override
  public Optional<MessagePage> messages(
      ChatKey key, int offset, int limit, boolean includeArchived) {
    if (offset < 0) {
      throw new IllegalArgumentException("message offset " + offset + " must be 0 or more");
    }
    checkLimit(limit);
    try {
      return inReadTransaction(
          c -> {
            if (readRecord(c, key, false) == null) {
              return Optional.empty();
            }
            return Optional.of(
                includeArchived
                    ? pageWithArchive(c, key, offset, limit)
                    : pageOfHistory(c, key, offset, limit));
          });
    } catch (SQLException e) {
      throw failed("reading the messages of chat " + key, e);
    }
  }

  private MessagePage pageOfHistory(Connection c, ChatKey key, int offset, int limit)
      throws SQLException {
    int[] total = new int[1];
    eachRow(
        c,
        "SELECT COUNT(*) FROM messages WHERE tenant = ? AND chat_id = ?",
        key,
        List.of(),
        rs -> total[0] = rs.getInt(1));
    List<MessageEntry> out = new ArrayList<>();
    if (offset < total[0]) {
      eachRow(
          c,
          "SELECT body FROM messages WHERE tenant = ? AND chat_id = ?"
              + " ORDER BY seq LIMIT ? OFFSET ?",
          key,
          List.of(limit, offset),
          rs -> out.add(MessageEntry.ofHistory(StoredMessages.read(rs.getString(1)))));
    }
    return new MessagePage(out, offset, total[0]);
  }

  private MessagePage pageWithArchive(Connection c, ChatKey key, int offset, int limit)
      throws SQLException {
    List<String> history = new ArrayList<>();
    eachRow(
        c,
        "SELECT message_id FROM messages WHERE tenant = ? AND chat_id = ? ORDER BY seq",
        key,
        List.of(),
        rs -> history.add(rs.getString(1)));
    List<ArchiveOrder.Row> rows = new ArrayList<>();
    eachRow(
        c,
        "SELECT id, message_id, summary_uuid FROM archived_messages"
            + " WHERE tenant = ? AND chat_id = ? ORDER BY id",
        key,
        List.of(),
        rs -> rows.add(new ArchiveOrder.Row(rs.getLong(1), rs.getString(2), rs.getString(3))));
    Map<String, String> summaryMessages = new HashMap<>();
    eachRow(
        c,
        "SELECT uuid, summary_message_id FROM summaries WHERE tenant = ? AND chat_id = ?",
        key,
        List.of(),
        rs -> summaryMessages.put(rs.getString(1), rs.getString(2)));
    List<ArchiveOrder.Ref> all = ArchiveOrder.order(history, rows, summaryMessages);
    int total = all.size();
    List<ArchiveOrder.Ref> page =
        offset >= total ? List.of() : all.subList(offset, Math.min(total, offset + limit));
    Map<String, Message> current = new HashMap<>();
    Map<Long, ArchivedMessage> archived = new HashMap<>();
    List<String> historyIds = new ArrayList<>();
    List<Long> rowIds = new ArrayList<>();
    for (ArchiveOrder.Ref r : page) {
      if (r.archived()) {
        rowIds.add(r.rowId());
      } else {
        historyIds.add(r.messageId());
      }
    }
    eachRowIn(
        c,
        "SELECT message_id, body FROM messages WHERE tenant = ? AND chat_id = ?"
            + " AND message_id IN (",
        key,
        historyIds,
        rs -> current.put(rs.getString(1), StoredMessages.read(rs.getString(2))));
    eachRowIn(
        c,
        "SELECT id, body, reason, summary_uuid, archived_at FROM archived_messages"
            + " WHERE tenant = ? AND chat_id = ? AND id IN (",
        key,
        rowIds,
        rs -> archived.put(rs.getLong("id"), archivedFrom(rs)));
    List<MessageEntry> out = new ArrayList<>(page.size());
    for (ArchiveOrder.Ref r : page) {
      out.add(
          r.archived()
              ? MessageEntry.ofArchive(archived.get(r.rowId()))
              : MessageEntry.ofHistory(current.get(r.messageId())));
    }
    return new MessagePage(out, offset, total);
  }

  private ArchivedMessage archivedFrom(ResultSet rs) throws SQLException {
    return new ArchivedMessage(
        StoredMessages.read(rs.getString("body")),
        ArchivedMessage.Reason.valueOf(rs.getString("reason").toUpperCase(Locale.ROOT)),
        rs.getString("summary_uuid"),
        getInstant(rs, "archived_at"));
  }

  /** Reads one row of a query's result. */
  @FunctionalInterface
  private interface RowReader<E extends Exception> {
    void read(ResultSet rs) throws SQLException, E;
  }

  /**
   * Runs the query {@code sql} about chat {@code key}, whose first two parameters are the chat's
   * tenant and id and the rest {@code more} (strings, ints or longs, in order), and hands each row
   * to {@code row}.
   */
  private static <E extends Exception> void eachRow(
      Connection c, String sql, ChatKey key, List<?> more, RowReader<E> row)
      throws SQLException, E {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.tenant());
      ps.setString(2, key.chatId());
      for (int i = 0; i < more.size(); i++) {
        ps.setObject(3 + i, more.get(i));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          row.read(rs);
        }
      }
    }
  }

  /**
   * {@link #eachRow} for {@code sql} that ends in {@code IN (}, completed with a parameter for each
   * of {@code ids}; no query when there are none.
   */
  private static <E extends Exception> void eachRowIn(
      Connection c, String sql, ChatKey key, List<?> ids, RowReader<E> row) throws SQLException, E {
    if (!ids.isEmpty()) {
      eachRow(
          c, sql + String.join(", ", Collections.nCopies(ids.size(), "?")) + ")", key, ids, row);
    }
  }

  @Override
  public final boolean delete(ChatKey key) {
    try (ChatLocks.Held held = locks.lock(key)) {
      return inWriteTransaction(
          c -> {
            if (readRecord(c, key, rowLocks()) == null) {
              return false;
            }
            for (String table :
                new String[] {"chat_calls", "summaries", "archived_messages", "messages"}) {
              try (PreparedStatement ps =
                  c.prepareStatement(
                      "DELETE FROM " + table + " WHERE tenant = ? AND chat_id = ?")) {
                ps.setString(1, key.tenant());
                ps.setString(2, key.chatId());
                ps.executeUpdate();
              }
            }
            try (PreparedStatement ps =
                c.prepareStatement("DELETE FROM chats WHERE tenant = ? AND chat_id = ?")) {
              ps.setString(1, key.tenant());
              ps.setString(2, key.chatId());
              return ps.executeUpdate() == 1;
            }
          });
    } catch (SQLException e) {
      throw failed("deleting chat " + key, e);
    }
  }

  private volatile JdbcKeyStore keys;

  @Override
  public KeyStore keys() {
    JdbcKeyStore k = keys;
    if (k == null) {
      synchronized (this) {
        if (keys == null) {
          keys = new JdbcKeyStore(this, Clock.systemUTC());
        }
        k = keys;
      }
    }
    return k;
  }

  /** A key store of this database reading time from {@code clock} (for tests). */
  KeyStore keys(Clock clock) {
    return new JdbcKeyStore(this, clock);
  }

  /** Whether the store was opened read-only (no writes possible). */
  boolean readOnly() {
    return false;
  }

  // ------------------------------------------------------------------ writes

  void insertRecord(Connection c, ChatRecord r, long version) throws SQLException {
    String sql =
        "INSERT INTO chats (tenant, chat_id, settings, model, interactions, last_prompt_tokens,"
            + " last_completion_tokens, version, created_at, updated_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, r.key().tenant());
      ps.setString(2, r.key().chatId());
      ps.setString(3, r.settings());
      ps.setString(4, r.model());
      ps.setLong(5, r.interactions());
      setLong(ps, 6, r.lastPromptTokens());
      setLong(ps, 7, r.lastCompletionTokens());
      ps.setLong(8, version);
      setInstant(ps, 9, r.createdAt());
      setInstant(ps, 10, r.updatedAt());
      ps.executeUpdate();
    }
  }

  /** Updates the row if it still has {@code expectedVersion}; false when it does not. */
  boolean updateRecord(Connection c, ChatRecord r, long expectedVersion) throws SQLException {
    String sql =
        "UPDATE chats SET settings = ?, model = ?, interactions = ?, last_prompt_tokens = ?,"
            + " last_completion_tokens = ?, version = ?, created_at = ?, updated_at = ?"
            + " WHERE tenant = ? AND chat_id = ? AND version = ?";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, r.settings());
      ps.setString(2, r.model());
      ps.setLong(3, r.interactions());
      setLong(ps, 4, r.lastPromptTokens());
      setLong(ps, 5, r.lastCompletionTokens());
      ps.setLong(6, expectedVersion + 1);
      setInstant(ps, 7, r.createdAt());
      setInstant(ps, 8, r.updatedAt());
      ps.setString(9, r.key().tenant());
      ps.setString(10, r.key().chatId());
      ps.setLong(11, expectedVersion);
      return ps.executeUpdate() == 1;
    }
  }

  /**
   * Writes the update's history, archive and summaries, given the history as it is stored now.
   *
   * @throws IllegalArgumentException when stored messages are removed without being archived, or
   *     archived messages are still in the history
   */
  void apply(Connection c, ChatKey key, List<Message> stored, ChatUpdate u) throws SQLException {
    Map<String, Integer> oldPositions = new HashMap<>();
    for (int i = 0; i < stored.size(); i++) {
      oldPositions.put(stored.get(i).id().value(), i);
    }
    Set<String> newIds = new HashSet<>();
    for (Message m : u.messages()) {
      newIds.add(m.id().value());
    }
    Set<String> removed = new HashSet<>(oldPositions.keySet());
    removed.removeAll(newIds);
    Set<String> archivedIds = new HashSet<>();
    for (ArchivedMessage a : u.archived()) {
      archivedIds.add(a.message().id().value());
    }
    if (!archivedIds.equals(removed)) {
      throw new IllegalArgumentException(
          "chat "
              + key
              + ": the messages removed from the history "
              + removed
              + " must be exactly the archived ones "
              + archivedIds);
    }
    if (!removed.isEmpty()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "DELETE FROM messages WHERE tenant = ? AND chat_id = ? AND message_id = ?")) {
        for (String id : removed) {
          ps.setString(1, key.tenant());
          ps.setString(2, key.chatId());
          ps.setString(3, id);
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
    try (PreparedStatement move =
            c.prepareStatement(
                "UPDATE messages SET seq = ? WHERE tenant = ? AND chat_id = ? AND message_id = ?");
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO messages (tenant, chat_id, message_id, seq, role, body)"
                    + " VALUES (?, ?, ?, ?, ?, ?)")) {
      boolean moves = false;
      boolean inserts = false;
      for (int i = 0; i < u.messages().size(); i++) {
        Message m = u.messages().get(i);
        Integer old = oldPositions.get(m.id().value());
        if (old == null) {
          insert.setString(1, key.tenant());
          insert.setString(2, key.chatId());
          insert.setString(3, m.id().value());
          insert.setInt(4, i);
          insert.setString(5, m.role().wireName());
          insert.setString(6, StoredMessages.write(m));
          insert.addBatch();
          inserts = true;
        } else if (old != i) {
          move.setInt(1, i);
          move.setString(2, key.tenant());
          move.setString(3, key.chatId());
          move.setString(4, m.id().value());
          move.addBatch();
          moves = true;
        }
      }
      if (moves) {
        move.executeBatch();
      }
      if (inserts) {
        insert.executeBatch();
      }
    }
    if (!u.archived().isEmpty()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO archived_messages (tenant, chat_id, message_id, role, body, reason,"
                  + " summary_uuid, archived_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
        for (ArchivedMessage a : u.archived()) {
          ps.setString(1, key.tenant());
          ps.setString(2, key.chatId());
          ps.setString(3, a.message().id().value());
          ps.setString(4, a.message().role().wireName());
          ps.setString(5, StoredMessages.write(a.message()));
          ps.setString(6, a.reason().wireName());
          ps.setString(7, a.summaryUuid());
          setInstant(ps, 8, a.archivedAt());
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
    for (SummaryRecord s : u.summaries()) {
      insertSummary(c, s);
    }
    if (u.call() != null) {
      insertCall(c, key, u.call());
    }
  }

  private void insertCall(Connection c, ChatKey key, CallRecord r) throws SQLException {
    String sql =
        "INSERT INTO chat_calls (tenant, chat_id, called_at, model, api, submitted, action,"
            + " tokens_before, tokens_after, message_count_before, message_count_after,"
            + " summary_uuid, compaction) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.tenant());
      ps.setString(2, key.chatId());
      setInstant(ps, 3, r.at());
      ps.setString(4, r.model());
      ps.setString(5, r.api());
      ps.setBoolean(6, r.submitted());
      ps.setString(7, r.action().wireName());
      setLong(ps, 8, r.tokensBefore());
      setLong(ps, 9, r.tokensAfter());
      ps.setInt(10, r.messageCountBefore());
      ps.setInt(11, r.messageCountAfter());
      ps.setString(12, r.summaryUuid());
      ps.setString(13, CallRecord.reportJson(r.compaction()));
      ps.executeUpdate();
    }
  }

  private void insertSummary(Connection c, SummaryRecord s) throws SQLException {
    String sql =
        "INSERT INTO summaries (uuid, tenant, chat_id, created_at, triggered_by, model,"
            + " covered_message_ids, message_count_before, message_count_after,"
            + " summary_message_id, summary_text, input_tokens, output_tokens, cache_read_tokens,"
            + " cache_write_tokens, reasoning_tokens, cost_usd)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, s.uuid());
      ps.setString(2, s.key().tenant());
      ps.setString(3, s.key().chatId());
      setInstant(ps, 4, s.createdAt());
      ps.setString(5, s.trigger().wireName());
      ps.setString(6, s.model());
      ps.setString(7, Json.MAPPER.valueToTree(s.coveredMessageIds()).toString());
      ps.setInt(8, s.messageCountBefore());
      ps.setInt(9, s.messageCountAfter());
      ps.setString(10, s.summaryMessageId());
      ps.setString(11, s.summaryText());
      ps.setLong(12, s.usage().input());
      ps.setLong(13, s.usage().output());
      ps.setLong(14, s.usage().cacheRead());
      ps.setLong(15, s.usage().cacheWrite());
      ps.setLong(16, s.usage().reasoning());
      setCost(ps, 17, s.costUsd());
      ps.executeUpdate();
    }
  }

  abstract void setCost(PreparedStatement ps, int index, BigDecimal cost) throws SQLException;

  static void setLong(PreparedStatement ps, int index, Long v) throws SQLException {
    if (v == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, v);
    }
  }

  ChatStoreException failed(String what, Exception e) {
    return new ChatStoreException(
        "chat store " + describe() + ": " + what + " failed: " + e.getMessage(), e);
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
