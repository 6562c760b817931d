package dev.compactor.log.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.wire.json.MessageCodec;
import dev.compactor.wire.json.MessageFormatException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The append-only compaction journal of a stored conversation, {@code compaction.jsonl}: one {@link
 * CompactionRecord} per line. A torn last line is repaired on open like the master log's.
 *
 * <p>It is a {@link CompactionListener}: given to a policy, it journals every compaction the policy
 * makes ({@link CompactionRecord#of}).
 *
 * <p>Obtained from {@link StoredConversation#journal()}; usable while the conversation is open.
 * Thread-safe.
 */
public final class CompactionJournal implements CompactionListener {
  static final String FILE = "compaction.jsonl";

  private final StoredConversation owner;
  private final MessageCodec codec;
  private final JsonlFile file;
  private final List<CompactionRecord> entries = new ArrayList<>();

  private CompactionJournal(StoredConversation owner, MessageCodec codec, JsonlFile file) {
    this.owner = owner;
    this.codec = codec;
    this.file = file;
  }

  static CompactionJournal open(StoredConversation owner, Path path, MessageCodec codec) {
    return open(owner, path, codec, null);
  }

  /**
   * Reads the journal; with {@code readOnlyProblems} not null, for reading only (nothing created or
   * repaired; a torn last line is described there and left as it is).
   */
  static CompactionJournal open(
      StoredConversation owner, Path path, MessageCodec codec, List<String> readOnlyProblems) {
    JsonlFile.Scan<CompactionRecord> scan =
        JsonlFile.scan(path, line -> fromJson(codec, codec.parseLine(line)));
    JsonlFile file = JsonlFile.open(path, scan, readOnlyProblems);
    CompactionJournal j = new CompactionJournal(owner, codec, file);
    scan.lines().forEach(l -> j.entries.add(l.value()));
    return j;
  }

  /**
   * Appends an entry; it is on the device when this returns.
   *
   * @throws LogIOException when writing fails
   * @throws MessageFormatException when an extra value is not a plain JSON value
   * @throws dev.compactor.core.CompactorException when the conversation is closed
   */
  public synchronized void append(CompactionRecord record) {
    owner.checkOpenForWrites();
    file.append(codec.formatLine(toJson(codec, record)));
    entries.add(record);
  }

  /** Appends the entry for {@code report} ({@link CompactionRecord#of}). */
  @Override
  public void compacted(AppliedCompaction report) {
    append(CompactionRecord.of(report));
  }

  /** Every entry, oldest first (a snapshot). */
  public synchronized List<CompactionRecord> entries() {
    return List.copyOf(entries);
  }

  /** The journal file. */
  public Path file() {
    return file.path();
  }

  synchronized void close() {
    file.close();
  }

  static ObjectNode toJson(MessageCodec codec, CompactionRecord r) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("timestamp", r.timestamp().toString());
    o.put("trigger", r.trigger());
    o.put("strategy", r.strategy());
    o.put("tokens_before", r.tokensBefore());
    o.put("tokens_after", r.tokensAfter());
    o.put("messages_before", r.messagesBefore());
    o.put("messages_after", r.messagesAfter());
    if (r.viewId() != null) {
      o.put("view", r.viewId());
    }
    r.extra().forEach((k, v) -> o.set(k, codec.jsonValue(v)));
    return o;
  }

  static CompactionRecord fromJson(MessageCodec codec, JsonNode o) {
    if (!o.isObject()) {
      throw new MessageFormatException("a compaction entry must be a JSON object, got " + o);
    }
    Map<String, Object> extra = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> f : o.properties()) {
      if (!CompactionRecord.FIELDS.contains(f.getKey())) {
        extra.put(f.getKey(), codec.plainValue(f.getValue()));
      }
    }
    Instant at;
    try {
      at = Instant.parse(text(o, "timestamp", true));
    } catch (DateTimeParseException e) {
      throw new MessageFormatException(
          "compaction entry: timestamp " + o.get("timestamp") + " is not an ISO-8601 instant", e);
    }
    return new CompactionRecord(
        at,
        text(o, "trigger", true),
        text(o, "strategy", true),
        number(o, "tokens_before"),
        number(o, "tokens_after"),
        (int) Math.min(Integer.MAX_VALUE, number(o, "messages_before")),
        (int) Math.min(Integer.MAX_VALUE, number(o, "messages_after")),
        text(o, "view", false),
        extra);
  }

  private static String text(JsonNode o, String field, boolean required) {
    JsonNode v = o.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new MessageFormatException("compaction entry: field " + field + " is missing");
      }
      return null;
    }
    if (!v.isTextual()) {
      throw new MessageFormatException(
          "compaction entry: field " + field + " must be a string, got " + v);
    }
    return v.asText();
  }

  private static long number(JsonNode o, String field) {
    JsonNode v = o.get(field);
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0) {
      throw new MessageFormatException(
          "compaction entry: field " + field + " must be a whole number >= 0, got " + v);
    }
    return v.longValue();
  }
}
