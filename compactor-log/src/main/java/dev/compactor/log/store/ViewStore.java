package dev.compactor.log.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.wire.json.MessageCodec;
import dev.compactor.wire.json.MessageFormatException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The persisted views of a conversation: {@code views/<id>.jsonl} (one entry per line) and {@code
 * views.json}, the ordered list of views with the active one last.
 *
 * <p>{@code views.json}: {@code {"active":"compacted-002","views":[{"id":"compacted-001",
 * "master_size":12},{"id":"compacted-002","master_size":20}]}}. {@code master_size} is the number
 * of master messages when the view became active; every message appended later is referenced at the
 * end of that view. The initial {@value View#MASTER_ID} view has no file: it is the first {@code
 * master_size} messages of the first listed view, or all messages when none is listed. A view file
 * that {@code views.json} does not list (a crash between writing both) is ignored.
 *
 * <p>Entry lines: {@code {"ref":"<id>"}}, or {@code {"synthesized":<message>,"covers":[ids],
 * "ranges":[{"id":..,"start":..,"end":..}]}}.
 *
 * <p>Not thread-safe; {@link StoredConversation} synchronizes.
 */
final class ViewStore {
  static final String INDEX = "views.json";
  static final String DIR = "views";
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private record Listed(String id, int masterSize) {}

  private record Parsed(ViewEntry entry, List<MessageRange> ranges) {}

  /** What {@link #load} found. */
  record Loaded(List<View> history, Map<MessageId, List<MessageRange>> recovery) {}

  private final Path dir;
  private final Path index;
  private final MessageCodec codec;
  private final List<Listed> listed = new ArrayList<>();
  private JsonlFile active; // null while the master view is active
  private List<String> readOnlyProblems; // null unless opened read-only

  private ViewStore(Path conversationDir, MessageCodec codec) {
    this.dir = conversationDir.resolve(DIR);
    this.index = conversationDir.resolve(INDEX);
    this.codec = codec;
  }

  /**
   * Reads every listed view, repairs a torn last line of any view file and adds the reference a
   * crash may have kept from the active view's file.
   *
   * @throws LogFormatException when {@code views.json} or a view file is malformed or references
   *     what the master log does not hold
   * @throws LogIOException when a file cannot be read or repaired
   */
  static ViewStore open(Path conversationDir, JsonlMasterLog log, MessageCodec codec) {
    return open(conversationDir, log, codec, null);
  }

  /**
   * Like {@link #open(Path, JsonlMasterLog, MessageCodec)}; with {@code readOnlyProblems} not null,
   * nothing is created, deleted or repaired: a torn last line of the active view's file is left as
   * it is and a reference a crash kept from it is added in memory only, each described in {@code
   * readOnlyProblems}.
   */
  static ViewStore open(
      Path conversationDir, JsonlMasterLog log, MessageCodec codec, List<String> readOnlyProblems) {
    ViewStore store = new ViewStore(conversationDir, codec);
    store.readOnlyProblems = readOnlyProblems;
    if (readOnlyProblems != null) {
      store.listed.addAll(store.readIndex(log.size()));
      return store;
    }
    try {
      Files.createDirectories(store.dir);
    } catch (IOException e) {
      throw new LogIOException(store.dir, "create", e);
    }
    DurableFiles.deleteTempFiles(store.dir);
    store.listed.addAll(store.readIndex(log.size()));
    return store;
  }

  /**
   * Master messages there were when view {@code id} became active: 0 for the master view, empty for
   * an id that is not a stored view.
   */
  java.util.OptionalInt masterSizeWhenActivated(String id) {
    if (View.MASTER_ID.equals(id)) {
      return java.util.OptionalInt.of(0);
    }
    for (Listed l : listed) {
      if (l.id().equals(id)) {
        return java.util.OptionalInt.of(l.masterSize());
      }
    }
    return java.util.OptionalInt.empty();
  }

  Loaded load(JsonlMasterLog log) {
    List<View> history = new ArrayList<>();
    Map<MessageId, List<MessageRange>> recovery = new HashMap<>();
    int masterViewSize = listed.isEmpty() ? log.size() : listed.get(0).masterSize();
    List<MessageId> masterIds = new ArrayList<>(masterViewSize);
    for (int i = 0; i < masterViewSize; i++) {
      masterIds.add(log.get(i).id());
    }
    history.add(View.ofRefs(View.MASTER_ID, masterIds));
    for (int v = 0; v < listed.size(); v++) {
      Listed l = listed.get(v);
      boolean isActive = v == listed.size() - 1;
      Path file = viewFile(l.id());
      if (!Files.isRegularFile(file)) {
        throw new LogFormatException(
            index, 0, -1, "lists view " + l.id() + " but " + file + " does not exist", null);
      }
      JsonlFile.Scan<Parsed> scan = JsonlFile.scan(file, this::parseEntry);
      List<ViewEntry> entries = new ArrayList<>(scan.lines().size());
      Set<MessageId> seen = new HashSet<>();
      for (JsonlFile.Line<Parsed> line : scan.lines()) {
        entries.add(check(file, line, log, seen, recovery));
      }
      if (!isActive) {
        if (scan.repair() != JsonlFile.Repair.NONE) {
          // only the active view is appended to (and repaired on open); elsewhere this is damage
          boolean torn = scan.repair() == JsonlFile.Repair.TRUNCATE;
          JsonlFile.Line<Parsed> last = torn ? null : scan.lines().get(scan.lines().size() - 1);
          throw new LogFormatException(
              file,
              torn ? scan.lineCount() + 1 : last.number(),
              torn ? scan.validLength() : last.start(),
              "the last line of view "
                  + l.id()
                  + ", which is no longer active, is "
                  + (torn ? "incomplete" : "missing its line break"),
              null);
        }
        history.add(new View(l.id(), entries));
        continue;
      }
      boolean readOnly = readOnlyProblems != null;
      active = JsonlFile.open(file, scan, readOnlyProblems);
      // A crash between the master append and the view append leaves refs missing at the end.
      List<String> missing = new ArrayList<>();
      for (int i = l.masterSize(); i < log.size(); i++) {
        MessageId id = log.get(i).id();
        if (!seen.contains(id)) {
          missing.add(refLine(id));
          entries.add(new ViewEntry.Ref(id));
          seen.add(id);
        }
      }
      int added = missing.size();
      if (!readOnly && added > 0) {
        active.appendAll(missing);
      }
      if (readOnly && added > 0) {
        readOnlyProblems.add(
            String.format(
                "views/%s: lacks the reference to the last %d message(s) of conversation.jsonl (a"
                    + " write cut short); read with them here, left as it is, and completed by the"
                    + " next command that writes to the conversation",
                file.getFileName(), added));
      }
      history.add(new View(l.id(), entries));
    }
    return new Loaded(history, recovery);
  }

  private List<Listed> readIndex(int masterSize) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(index);
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new LogIOException(index, "read", e);
    }
    JsonNode root;
    try {
      root = codec.parseLine(new String(bytes, StandardCharsets.UTF_8));
    } catch (MessageFormatException e) {
      throw new LogFormatException(index, 0, -1, e.getMessage(), e);
    }
    JsonNode views = root.get("views");
    if (!root.isObject() || views == null || !views.isArray()) {
      throw new LogFormatException(index, 0, -1, "expected {\"views\":[...]}, got " + root, null);
    }
    List<Listed> out = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    int previous = 0;
    for (JsonNode v : views) {
      JsonNode id = v.get("id");
      JsonNode size = v.get("master_size");
      if (id == null
          || !id.isTextual()
          || size == null
          || !size.canConvertToInt()
          || !size.isIntegralNumber()) {
        throw new LogFormatException(
            index, 0, -1, "a view needs a string id and an integer master_size, got " + v, null);
      }
      int n = size.intValue();
      if (n < previous || n > masterSize) {
        throw new LogFormatException(
            index,
            0,
            -1,
            "view "
                + id.asText()
                + " has master_size "
                + n
                + ", outside "
                + previous
                + ".."
                + masterSize
                + " (messages in the master log)",
            null);
      }
      if (id.asText().equals(View.MASTER_ID) || !ids.add(id.asText())) {
        throw new LogFormatException(index, 0, -1, "view id " + id.asText() + " is reused", null);
      }
      try {
        new View(id.asText(), List.of());
      } catch (IllegalArgumentException e) {
        throw new LogFormatException(index, 0, -1, e.getMessage(), e);
      }
      previous = n;
      out.add(new Listed(id.asText(), n));
    }
    JsonNode activeId = root.get("active");
    String expected = out.isEmpty() ? View.MASTER_ID : out.get(out.size() - 1).id();
    if (activeId != null && !activeId.asText().equals(expected)) {
      throw new LogFormatException(
          index,
          0,
          -1,
          "active view " + activeId + " is not the last listed view " + expected,
          null);
    }
    return out;
  }

  private Parsed parseEntry(String text) {
    JsonNode node = codec.parseLine(text);
    if (!node.isObject()) {
      throw new MessageFormatException("a view entry must be a JSON object, got " + text);
    }
    JsonNode ref = node.get("ref");
    JsonNode synth = node.get("synthesized");
    if ((ref == null) == (synth == null)) {
      throw new MessageFormatException(
          "a view entry needs exactly one of \"ref\" and \"synthesized\"");
    }
    if (ref != null) {
      if (!ref.isTextual() || ref.asText().isBlank()) {
        throw new MessageFormatException("\"ref\" must be a message id, got " + ref);
      }
      return new Parsed(new ViewEntry.Ref(MessageId.of(ref.asText())), List.of());
    }
    Message message = codec.read(synth);
    JsonNode covers = node.get("covers");
    if (covers == null || !covers.isArray()) {
      throw new MessageFormatException(
          "synthesized " + message.id() + ": \"covers\" must be an array of message ids");
    }
    List<MessageId> ids = new ArrayList<>();
    for (JsonNode c : covers) {
      if (!c.isTextual() || c.asText().isBlank()) {
        throw new MessageFormatException(
            "synthesized " + message.id() + ": covers holds " + c + ", not a message id");
      }
      ids.add(MessageId.of(c.asText()));
    }
    List<MessageRange> ranges = new ArrayList<>();
    JsonNode rs = node.get("ranges");
    if (rs != null && !rs.isNull()) {
      if (!rs.isArray()) {
        throw new MessageFormatException(
            "synthesized " + message.id() + ": \"ranges\" must be an array, got " + rs);
      }
      for (JsonNode r : rs) {
        JsonNode id = r.get("id");
        JsonNode start = r.get("start");
        JsonNode end = r.get("end");
        if (id == null
            || !id.isTextual()
            || start == null
            || !start.isIntegralNumber()
            || end == null
            || !end.isIntegralNumber()) {
          throw new MessageFormatException(
              "synthesized " + message.id() + ": a range needs id, start and end, got " + r);
        }
        ranges.add(new MessageRange(MessageId.of(id.asText()), start.longValue(), end.longValue()));
      }
    }
    return new Parsed(new ViewEntry.Synthesized(message, ids), ranges);
  }

  private static ViewEntry check(
      Path file,
      JsonlFile.Line<Parsed> line,
      JsonlMasterLog log,
      Set<MessageId> seen,
      Map<MessageId, List<MessageRange>> recovery) {
    ViewEntry entry = line.value().entry();
    if (entry instanceof ViewEntry.Ref r) {
      if (log.indexOf(r.id()) < 0) {
        throw bad(file, line, "references message " + r.id() + ", not in the master log");
      }
      if (!seen.add(r.id())) {
        throw bad(file, line, "references message " + r.id() + " twice");
      }
      return entry;
    }
    ViewEntry.Synthesized s = (ViewEntry.Synthesized) entry;
    MessageId sid = s.message().id();
    if (log.indexOf(sid) >= 0 || !seen.add(sid)) {
      throw bad(file, line, "synthesized id " + sid + " is not unique");
    }
    List<MessageRange> expected = new ArrayList<>(s.covers().size());
    for (MessageId c : s.covers()) {
      expected.add(
          log.range(c)
              .orElseThrow(
                  () -> bad(file, line, sid + " covers " + c + ", not in the master log")));
    }
    List<MessageRange> stored = line.value().ranges();
    if (!stored.isEmpty() && !stored.equals(expected)) {
      throw bad(
          file,
          line,
          "recovery ranges of "
              + sid
              + " "
              + stored
              + " do not match "
              + log.path().getFileName()
              + " "
              + expected);
    }
    recovery.put(sid, List.copyOf(expected));
    return entry;
  }

  private static LogFormatException bad(Path file, JsonlFile.Line<?> line, String detail) {
    return new LogFormatException(file, line.number(), line.start(), detail, null);
  }

  /**
   * Appends a reference to each message to the active view's file, durably (one flush for all).
   *
   * @throws LogIOException when writing fails
   */
  void appendRefs(List<MessageId> ids) {
    if (active == null) {
      return;
    }
    if (ids.size() == 1) {
      active.append(refLine(ids.get(0)));
      return;
    }
    List<String> lines = new ArrayList<>(ids.size());
    ids.forEach(id -> lines.add(refLine(id)));
    active.appendAll(lines);
  }

  /**
   * Persists {@code next} as the new active view: its file first, then {@code views.json} (the
   * commit point). A failure before the commit point leaves the stored views as they were; a
   * failure writing {@code views.json} throws {@link UncertainCommitException}: the view may or may
   * not be active on disk, so the caller must not go on writing without reopening.
   *
   * @param recovery the byte ranges of every synthesized entry's covered messages
   * @param masterSize master messages now
   * @throws LogIOException when a file cannot be written
   */
  void commit(View next, Map<MessageId, List<MessageRange>> recovery, int masterSize) {
    StringBuilder sb = new StringBuilder();
    for (ViewEntry e : next.entries()) {
      if (e instanceof ViewEntry.Ref r) {
        sb.append(refLine(r.id()));
      } else {
        ViewEntry.Synthesized s = (ViewEntry.Synthesized) e;
        sb.append(synthesizedLine(s, recovery.get(s.message().id())));
      }
      sb.append('\n');
    }
    byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
    Path file = viewFile(next.id());
    DurableFiles.writeAtomically(file, bytes);
    JsonlFile opened =
        JsonlFile.openForAppend(
            file,
            new JsonlFile.Scan<>(
                List.of(), next.entries().size(), bytes.length, JsonlFile.Repair.NONE));
    List<Listed> after = new ArrayList<>(listed);
    after.add(new Listed(next.id(), masterSize));
    try {
      writeIndex(after);
    } catch (RuntimeException e) {
      opened.close();
      throw new UncertainCommitException(e);
    }
    listed.add(new Listed(next.id(), masterSize));
    if (active != null) {
      active.close();
    }
    active = opened;
  }

  private void writeIndex(List<Listed> views) {
    ObjectNode root = NODES.objectNode();
    root.put("active", views.get(views.size() - 1).id());
    ArrayNode a = root.putArray("views");
    for (Listed l : views) {
      a.addObject().put("id", l.id()).put("master_size", l.masterSize());
    }
    DurableFiles.writeAtomically(
        index, (codec.formatLine(root) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  private String refLine(MessageId id) {
    return codec.formatLine(NODES.objectNode().put("ref", id.value()));
  }

  private String synthesizedLine(ViewEntry.Synthesized s, List<MessageRange> ranges) {
    ObjectNode o = NODES.objectNode();
    o.set("synthesized", codec.write(s.message()));
    ArrayNode covers = o.putArray("covers");
    s.covers().forEach(c -> covers.add(c.value()));
    ArrayNode rs = o.putArray("ranges");
    for (MessageRange r : ranges) {
      rs.addObject().put("id", r.id().value()).put("start", r.start()).put("end", r.end());
    }
    return codec.formatLine(o);
  }

  private Path viewFile(String id) {
    return dir.resolve(id + ".jsonl");
  }

  Path directory() {
    return dir;
  }

  void close() {
    if (active != null) {
      active.close();
    }
  }

  /** Writing {@code views.json} failed: whether the new view is active on disk is not known. */
  static final class UncertainCommitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UncertainCommitException(RuntimeException failure) {
      super(failure.getMessage(), failure);
    }

    RuntimeException failure() {
      return (RuntimeException) getCause();
    }
  }
}
