package dev.compactor.chat.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.wire.json.Json;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
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
    try (Connection c = readConnection()) {
      // One read transaction: the record and the history come from the same snapshot.
      c.setAutoCommit(false);
      try {
        ChatRecord r = readRecord(c, key, false);
        Optional<ChatSnapshot> out =
            r == null ? Optional.empty() : Optional.of(new ChatSnapshot(r, readMessages(c, key)));
        c.commit();
        return out;
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c, e);
        throw e;
      }
    } catch (SQLException e) {
      throw failed("reading chat " + key, e);
    }
  }

  /** A connection for reads outside a call; subclasses may adjust its transaction mode. */
  Connection readConnection() throws SQLException {
    return dataSource.getConnection();
  }

  @Override
  public List<SummaryRecord> summaries(ChatKey key) {
    String sql =
        "SELECT uuid, created_at, triggered_by, model, covered_message_ids,"
            + " message_count_before, message_count_after, summary_message_id, summary_text,"
            + " input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,"
            + " reasoning_tokens, cost_usd FROM summaries WHERE tenant = ? AND chat_id = ?"
            + " ORDER BY created_at, uuid";
    try (Connection c = readConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.tenant());
      ps.setString(2, key.chatId());
      List<SummaryRecord> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          List<String> covered = new ArrayList<>();
          for (JsonNode n : Json.MAPPER.readTree(rs.getString("covered_message_ids"))) {
            covered.add(n.asText());
          }
          String cost = rs.getString("cost_usd");
          out.add(
              new SummaryRecord(
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
                  cost == null ? null : new BigDecimal(cost).stripTrailingZeros()));
        }
      }
      return out;
    } catch (SQLException | JsonProcessingException e) {
      throw failed("reading summaries of chat " + key, e);
    }
  }

  @Override
  public List<ArchivedMessage> archivedMessages(ChatKey key) {
    String sql =
        "SELECT body, reason, summary_uuid, archived_at FROM archived_messages"
            + " WHERE tenant = ? AND chat_id = ? ORDER BY id";
    try (Connection c = readConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.tenant());
      ps.setString(2, key.chatId());
      List<ArchivedMessage> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new ArchivedMessage(
                  StoredMessages.read(rs.getString("body")),
                  ArchivedMessage.Reason.valueOf(rs.getString("reason").toUpperCase()),
                  rs.getString("summary_uuid"),
                  getInstant(rs, "archived_at")));
        }
      }
      return out;
    } catch (SQLException e) {
      throw failed("reading the archive of chat " + key, e);
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
        if (!rs.next()) {
          return null;
        }
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
    }
  }

  List<Message> readMessages(Connection c, ChatKey key) throws SQLException {
    String sql = "SELECT body FROM messages WHERE tenant = ? AND chat_id = ? ORDER BY seq";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key.tenant());
      ps.setString(2, key.chatId());
      List<Message> out = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(StoredMessages.read(rs.getString(1)));
        }
      }
      return out;
    }
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

  static void rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
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
