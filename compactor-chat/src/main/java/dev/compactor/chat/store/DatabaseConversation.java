package dev.compactor.chat.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.Trigger;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.MasterLog;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.wire.json.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One conversation of a {@link ConversationStore}: the {@link Conversation} operations over its
 * tables, each change written (in one transaction) before it returns, plus the compaction journal
 * and the conversation's system message.
 *
 * <p>Design: the database is the truth and memory mirrors it (an {@link InMemoryConversation} read
 * on open). An append inserts the message at the next position of the log; a view switch inserts
 * the view with the log size at that moment, and every message appended later belongs to the end of
 * the view then active — the layout of a conversation directory, so an append is one row. Each
 * write checks that the row before it is there and that its own position is free, so a second
 * writer (or a delete) in between makes it fail with {@link ConversationConflictException}, and
 * nothing of it is stored; memory changes only after the database did.
 *
 * <p>Thread-safe: methods synchronize on the instance.
 */
public final class DatabaseConversation implements Conversation, CompactionListener {
  private final ConversationStore store;
  private final String id;
  private final InMemoryMasterLog log;
  private final MasterLog readOnly = new ReadOnlyMaster();
  private InMemoryConversation mirror;
  private int storedViews; // compacted views stored (the master view has no row)
  private final List<AppliedCompaction> journal = new ArrayList<>();
  private Message system;

  private DatabaseConversation(
      ConversationStore store,
      String id,
      InMemoryMasterLog log,
      InMemoryConversation mirror,
      int storedViews,
      List<AppliedCompaction> journal,
      Message system) {
    this.store = store;
    this.id = id;
    this.log = log;
    this.mirror = mirror;
    this.storedViews = storedViews;
    this.journal.addAll(journal);
    this.system = system;
  }

  private record StoredView(int seq, String viewId, int masterSize, String entries) {}

  static DatabaseConversation load(ConversationStore store, String id) {
    return store.read(
        "reading conversation " + id,
        c -> {
          Message system = null;
          try (PreparedStatement ps =
              c.prepareStatement("SELECT system_message FROM conversations WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next() && rs.getString(1) != null) {
                system = StoredMessages.read(rs.getString(1));
              }
            }
          }
          List<Message> messages = new ArrayList<>();
          eachRow(
              c,
              "SELECT seq, body FROM conversation_messages WHERE conversation_id = ? ORDER BY seq",
              id,
              rs -> {
                if (rs.getInt(1) != messages.size()) {
                  throw new ChatStoreException(
                      "conversation "
                          + id
                          + ": message "
                          + rs.getInt(1)
                          + " of the log follows message "
                          + (messages.size() - 1)
                          + " (a gap)");
                }
                messages.add(StoredMessages.read(rs.getString(2)));
              });
          List<StoredView> views = new ArrayList<>();
          eachRow(
              c,
              "SELECT seq, view_id, master_size, entries FROM conversation_views"
                  + " WHERE conversation_id = ? ORDER BY seq",
              id,
              rs ->
                  views.add(
                      new StoredView(
                          rs.getInt(1), rs.getString(2), rs.getInt(3), rs.getString(4))));
          List<AppliedCompaction> journal = new ArrayList<>();
          eachRow(
              c,
              "SELECT at_ns, trigger_name, strategy, tokens_before, tokens_after,"
                  + " messages_before, messages_after, duration_ns, view_id, limitations"
                  + " FROM conversation_compactions WHERE conversation_id = ? ORDER BY seq",
              id,
              rs ->
                  journal.add(
                      new AppliedCompaction(
                          Instant.EPOCH.plusNanos(rs.getLong(1)),
                          Trigger.valueOf(rs.getString(2).toUpperCase(Locale.ROOT)),
                          rs.getString(3),
                          rs.getLong(4),
                          rs.getLong(5),
                          rs.getInt(6),
                          rs.getInt(7),
                          Duration.ofNanos(rs.getLong(8)),
                          rs.getString(9),
                          readStrings(id, rs.getString(10)))));
          InMemoryMasterLog log = new InMemoryMasterLog(messages);
          InMemoryConversation mirror;
          try {
            mirror = new InMemoryConversation(log, history(id, messages, views));
          } catch (CompactorException e) {
            throw new ChatStoreException(
                "conversation " + id + ": the stored views are not valid: " + e.getMessage(), e);
          }
          return new DatabaseConversation(store, id, log, mirror, views.size(), journal, system);
        });
  }

  /** The views as the conversation had them: the master view, then each stored one. */
  private static List<View> history(String id, List<Message> messages, List<StoredView> stored) {
    List<View> out = new ArrayList<>();
    int firstSize = stored.isEmpty() ? messages.size() : stored.get(0).masterSize();
    out.add(View.ofRefs(View.MASTER_ID, ids(messages, 0, firstSize, id)));
    for (int k = 0; k < stored.size(); k++) {
      StoredView v = stored.get(k);
      if (v.seq() != k) {
        throw new ChatStoreException("conversation " + id + ": view " + v.seq() + " has a gap");
      }
      int end = k + 1 < stored.size() ? stored.get(k + 1).masterSize() : messages.size();
      List<ViewEntry> entries = new ArrayList<>(readEntries(id, v));
      for (MessageId m : ids(messages, v.masterSize(), end, id)) {
        entries.add(new ViewEntry.Ref(m));
      }
      out.add(new View(v.viewId(), entries));
    }
    return out;
  }

  private static List<MessageId> ids(List<Message> messages, int from, int to, String id) {
    if (from < 0 || to > messages.size() || from > to) {
      throw new ChatStoreException(
          "conversation "
              + id
              + ": a view covers log positions "
              + from
              + " to "
              + to
              + " of "
              + messages.size());
    }
    return messages.subList(from, to).stream().map(Message::id).toList();
  }

  private static List<ViewEntry> readEntries(String id, StoredView v) {
    try {
      List<ViewEntry> out = new ArrayList<>();
      for (JsonNode e : Json.MAPPER.readTree(v.entries())) {
        if (e.has("ref")) {
          out.add(new ViewEntry.Ref(new MessageId(e.get("ref").asText())));
        } else {
          List<MessageId> covers = new ArrayList<>();
          for (JsonNode c : e.path("covers")) {
            covers.add(new MessageId(c.asText()));
          }
          out.add(
              new ViewEntry.Synthesized(
                  StoredMessages.read(e.path("synthesized").asText()), covers));
        }
      }
      return out;
    } catch (JsonProcessingException | RuntimeException e) {
      throw new ChatStoreException(
          "conversation " + id + ": view " + v.viewId() + " cannot be read: " + e.getMessage(), e);
    }
  }

  private static String writeEntries(View v) {
    ArrayNode arr = Json.MAPPER.createArrayNode();
    for (ViewEntry e : v.entries()) {
      ObjectNode o = arr.addObject();
      if (e instanceof ViewEntry.Ref r) {
        o.put("ref", r.id().value());
      } else if (e instanceof ViewEntry.Synthesized s) {
        // the message's stored line, as text: read back exactly
        o.put("synthesized", StoredMessages.write(s.message()));
        ArrayNode covers = o.putArray("covers");
        s.covers().forEach(c -> covers.add(c.value()));
      }
    }
    return arr.toString();
  }

  private static List<String> readStrings(String id, String json) {
    try {
      List<String> out = new ArrayList<>();
      for (JsonNode n : Json.MAPPER.readTree(json)) {
        out.add(n.asText());
      }
      return out;
    } catch (JsonProcessingException e) {
      throw new ChatStoreException(
          "conversation " + id + ": a journal entry cannot be read: " + e.getMessage(), e);
    }
  }

  /** The conversation id. */
  public String id() {
    return id;
  }

  @Override
  public synchronized MasterLog master() {
    return readOnly;
  }

  @Override
  public synchronized View activeView() {
    return mirror.activeView();
  }

  @Override
  public synchronized List<View> views() {
    return mirror.views();
  }

  /**
   * Stores the message at the end of the log and of the active view.
   *
   * @throws IllegalArgumentException when a message with the same id is already stored
   * @throws ConversationConflictException when another writer changed the conversation meanwhile
   * @throws ChatStoreException when the database fails (nothing stored)
   */
  @Override
  public synchronized void append(Message message) {
    if (log.indexOf(message.id()) >= 0) {
      throw new IllegalArgumentException(
          "conversation " + id + " already holds a message with id " + message.id());
    }
    int seq = log.size();
    String body = StoredMessages.write(message);
    appendRow(
        "appending message " + message.id() + " to conversation " + id,
        "conversation_messages",
        seq,
        "INSERT INTO conversation_messages (conversation_id, seq, message_id, role, body)"
            + " VALUES (?, ?, ?, ?, ?)",
        ps -> {
          ps.setString(3, message.id().value());
          ps.setString(4, message.role().wireName());
          ps.setString(5, body);
        });
    mirror.append(message);
  }

  @Override
  public synchronized List<Message> activeMessages() {
    return mirror.activeMessages();
  }

  @Override
  public synchronized List<Message> resolve(View view) {
    return mirror.resolve(view);
  }

  /**
   * Makes {@code next} the active view and stores it.
   *
   * @throws CompactorException when the view is not valid for this conversation (nothing changes)
   * @throws ConversationConflictException when another writer changed the conversation meanwhile
   * @throws ChatStoreException when the database fails (nothing changes)
   */
  @Override
  public synchronized void switchTo(View next) {
    List<View> before = mirror.views();
    mirror.switchTo(next); // validates; on failure nothing changed
    int seq = storedViews;
    int masterSize = log.size();
    try {
      appendRow(
          "storing view " + next.id() + " of conversation " + id,
          "conversation_views",
          seq,
          "INSERT INTO conversation_views (conversation_id, seq, view_id, master_size, entries)"
              + " VALUES (?, ?, ?, ?, ?)",
          ps -> {
            ps.setString(3, next.id());
            ps.setInt(4, masterSize);
            ps.setString(5, writeEntries(next));
          });
    } catch (RuntimeException e) {
      mirror = new InMemoryConversation(log, before);
      throw e;
    }
    storedViews++;
  }

  @Override
  public synchronized String nextViewId() {
    return mirror.nextViewId();
  }

  @Override
  public synchronized List<Message> recover(MessageId messageId) {
    return mirror.recover(messageId);
  }

  /**
   * Records a compaction in the journal (a policy's listener calls this after the new view is
   * active).
   *
   * @throws ConversationConflictException when another writer changed the journal meanwhile
   * @throws ChatStoreException when the database fails (nothing stored)
   */
  @Override
  public synchronized void compacted(AppliedCompaction r) {
    int seq = journal.size();
    appendRow(
        "recording a compaction of conversation " + id,
        "conversation_compactions",
        seq,
        "INSERT INTO conversation_compactions (conversation_id, seq, at_ns, trigger_name,"
            + " strategy, tokens_before, tokens_after, messages_before, messages_after,"
            + " duration_ns, view_id, limitations)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ps -> {
          ps.setLong(3, epochNanos(r.at()));
          ps.setString(4, r.trigger().wireName());
          ps.setString(5, r.strategy());
          ps.setLong(6, r.tokensBefore());
          ps.setLong(7, r.tokensAfter());
          ps.setInt(8, r.messagesBefore());
          ps.setInt(9, r.messagesAfter());
          ps.setLong(10, r.duration().toNanos());
          ps.setString(11, r.viewId());
          ps.setString(12, Json.MAPPER.valueToTree(r.limitations()).toString());
        });
    journal.add(r);
  }

  private static long epochNanos(Instant t) {
    return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
  }

  /** The compactions recorded, oldest first. */
  public synchronized List<AppliedCompaction> journal() {
    return List.copyOf(journal);
  }

  /** The conversation's system message, kept beside the log; empty when none was set. */
  public synchronized Optional<Message> systemMessage() {
    return Optional.ofNullable(system);
  }

  /**
   * Stores the conversation's system message (replacing the previous one), or removes it ({@code
   * null}). Unchanged text is not written again.
   *
   * @throws ChatStoreException when the database fails (nothing changes)
   */
  public synchronized void systemMessage(Message message) {
    if (message != null && system != null && message.content().equals(system.content())) {
      return;
    }
    if (message == null && system == null) {
      return;
    }
    String body = message == null ? null : StoredMessages.write(message);
    store.write(
        "storing the system message of conversation " + id,
        c -> {
          touch(c);
          try (PreparedStatement ps =
              c.prepareStatement("UPDATE conversations SET system_message = ? WHERE id = ?")) {
            if (body == null) {
              ps.setNull(1, Types.VARCHAR);
            } else {
              ps.setString(1, body);
            }
            ps.setString(2, id);
            ps.executeUpdate();
          }
          return null;
        });
    system = message;
  }

  /**
   * Creates the conversation's row when missing and sets its update time. A conversation that was
   * read with content but whose row is gone was deleted meanwhile: a conflict.
   */
  private void touch(Connection c) throws SQLException {
    long now = System.currentTimeMillis();
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE conversations SET updated_at = ? WHERE id = ?")) {
      ps.setLong(1, now);
      ps.setString(2, id);
      if (ps.executeUpdate() == 1) {
        return;
      }
    }
    if (log.size() > 0 || storedViews > 0 || !journal.isEmpty()) {
      throw conflict("it was deleted");
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO conversations (id, created_at, updated_at) VALUES (?, ?, ?)")) {
      ps.setString(1, id);
      ps.setLong(2, now);
      ps.setLong(3, now);
      ps.executeUpdate();
    }
  }

  /** Sets the parameters of an insert after the first two (the conversation id and seq). */
  private interface RowValues {
    void set(PreparedStatement ps) throws SQLException;
  }

  /**
   * Stores row {@code seq} of {@code table} in one transaction: touches the conversation's row,
   * requires row {@code seq - 1} (a conflict when another writer removed it or got there first),
   * then runs {@code insert}, whose first two parameters are the conversation id and {@code seq}.
   *
   * @param what what is stored, for the error message
   */
  private void appendRow(String what, String table, int seq, String insert, RowValues values) {
    store.write(
        what,
        c -> {
          touch(c);
          requireRow(c, table, seq - 1);
          try (PreparedStatement ps = c.prepareStatement(insert)) {
            ps.setString(1, id);
            ps.setInt(2, seq);
            values.set(ps);
            ps.executeUpdate();
          }
          return null;
        });
  }

  /** Reads one row of a result. */
  private interface RowReader {
    void read(ResultSet rs) throws SQLException;
  }

  /** Runs {@code select}, whose only parameter is the conversation id, row by row. */
  private static void eachRow(Connection c, String select, String id, RowReader row)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(select)) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          row.read(rs);
        }
      }
    }
  }

  /** Fails with a conflict unless row {@code seq} of {@code table} exists ({@code seq < 0}: ok). */
  private void requireRow(Connection c, String table, int seq) throws SQLException {
    if (seq < 0) {
      return;
    }
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM " + table + " WHERE conversation_id = ? AND seq = ?")) {
      ps.setString(1, id);
      ps.setInt(2, seq);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw conflict("its row " + seq + " of " + table + " is gone");
        }
      }
    }
  }

  private ConversationConflictException conflict(String why) {
    return new ConversationConflictException(
        "conversation "
            + id
            + " in "
            + store.describe()
            + " changed since it was read ("
            + why
            + "); nothing was stored, reopen the conversation",
        null);
  }

  /** The log as callers may read it: appends go through {@link #append}. */
  private final class ReadOnlyMaster implements MasterLog {
    @Override
    public void append(Message message) {
      throw new UnsupportedOperationException(
          "append to conversation " + id + " through the conversation, not its master log");
    }

    @Override
    public Optional<Message> get(MessageId messageId) {
      synchronized (DatabaseConversation.this) {
        return log.get(messageId);
      }
    }

    @Override
    public int indexOf(MessageId messageId) {
      synchronized (DatabaseConversation.this) {
        return log.indexOf(messageId);
      }
    }

    @Override
    public int size() {
      synchronized (DatabaseConversation.this) {
        return log.size();
      }
    }

    @Override
    public List<Message> messages() {
      synchronized (DatabaseConversation.this) {
        return log.messages();
      }
    }
  }
}
