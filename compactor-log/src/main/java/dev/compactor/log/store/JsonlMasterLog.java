package dev.compactor.log.store;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.MasterLog;
import dev.compactor.wire.json.MessageCodec;
import dev.compactor.wire.json.MessageFormatException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The {@link MasterLog} kept in {@code conversation.jsonl}: every message in memory, plus the byte
 * range of each one's line so it can be read back from the file exactly. A message's position in
 * the log is not its line number (blank lines, repaired tails); only the recorded ranges are used.
 *
 * <p>Not thread-safe; {@link StoredConversation} synchronizes.
 */
final class JsonlMasterLog implements MasterLog {
  private final MessageCodec codec;
  private final JsonlFile file;
  private final InMemoryMasterLog memory = new InMemoryMasterLog();
  private final List<MessageRange> ranges = new ArrayList<>();
  private final List<Long> lineNumbers = new ArrayList<>();
  private Consumer<List<Message>> afterAppend = m -> {};

  private JsonlMasterLog(MessageCodec codec, JsonlFile file) {
    this.codec = codec;
    this.file = file;
  }

  /**
   * Reads {@code conversation.jsonl} (created when missing), repairing a torn last line.
   *
   * @throws LogFormatException for a malformed line that is not the torn last line, or a duplicate
   *     message id
   * @throws LogIOException when the file cannot be read or opened
   */
  static JsonlMasterLog open(Path path, MessageCodec codec) {
    return open(path, codec, null);
  }

  /**
   * Like {@link #open(Path, MessageCodec)}; with {@code readOnlyProblems} not null, the file is
   * opened for reading only: nothing is created or repaired, and a torn or unterminated last line
   * is described in {@code readOnlyProblems} instead.
   */
  static JsonlMasterLog open(Path path, MessageCodec codec, List<String> readOnlyProblems) {
    JsonlFile.Scan<Message> scan = JsonlFile.scan(path, codec::readLine);
    Map<MessageId, Long> firstLine = new HashMap<>();
    for (JsonlFile.Line<Message> line : scan.lines()) {
      Long earlier = firstLine.putIfAbsent(line.value().id(), line.number());
      if (earlier != null) {
        throw new LogFormatException(
            path,
            line.number(),
            line.start(),
            "duplicate message id " + line.value().id() + " (first on line " + earlier + ")",
            null);
      }
    }
    JsonlFile file = JsonlFile.open(path, scan, readOnlyProblems);
    JsonlMasterLog log = new JsonlMasterLog(codec, file);
    for (JsonlFile.Line<Message> line : scan.lines()) {
      log.add(line.value(), new MessageRange(line.value().id(), line.start(), line.end()));
      log.lineNumbers.add(line.number());
    }
    return log;
  }

  /**
   * Called after each durable append, before {@link #append} or {@link #appendAll} returns, with
   * the messages appended.
   */
  void onAppend(Consumer<List<Message>> listener) {
    this.afterAppend = listener;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The line is written and forced to the device before this returns. The log then holds the
   * message as decoded from that line (equal to {@code message} unless its extra values are not
   * plain JSON values, e.g. a {@code Long} that reads back as {@code Integer}).
   *
   * @throws LogIOException when writing fails
   */
  @Override
  public void append(Message message) {
    if (memory.indexOf(message.id()) >= 0) {
      throw new IllegalArgumentException("message id " + message.id() + " is already in the log");
    }
    String json = codec.writeLine(message);
    // Keep what the file holds (e.g. a Long extra value reads back as Integer), so memory is the
    // same before and after a reopen.
    Message stored = codec.readLine(json);
    long[] range = file.append(json);
    add(stored, new MessageRange(message.id(), range[0], range[1]));
    lineNumbers.add(file.lineCount());
    afterAppend.accept(List.of(message));
  }

  /**
   * {@inheritDoc}
   *
   * <p>The lines are written together and forced to the device once, after the last, before this
   * returns (as durable as {@link #append} of each, for one flush). The log then holds the messages
   * as decoded from their lines. A crash before it returns may keep a prefix of them.
   *
   * @throws LogIOException when writing fails (the file is then rolled back: none of them is
   *     stored)
   */
  @Override
  public void appendAll(List<Message> messages) {
    MasterLog.checkNew(this, messages);
    if (messages.isEmpty()) {
      return;
    }
    List<String> lines = new ArrayList<>(messages.size());
    List<Message> stored = new ArrayList<>(messages.size());
    for (Message m : messages) {
      String json = codec.writeLine(m);
      lines.add(json);
      stored.add(codec.readLine(json)); // what the file holds, as in append
    }
    long[][] written = file.appendAll(lines);
    long firstLine = file.lineCount() - messages.size() + 1;
    for (int i = 0; i < messages.size(); i++) {
      add(stored.get(i), new MessageRange(messages.get(i).id(), written[i][0], written[i][1]));
      lineNumbers.add(firstLine + i);
    }
    afterAppend.accept(List.copyOf(messages));
  }

  private void add(Message m, MessageRange r) {
    memory.append(m);
    ranges.add(r);
  }

  @Override
  public Optional<Message> get(MessageId id) {
    return memory.get(id);
  }

  @Override
  public int indexOf(MessageId id) {
    return memory.indexOf(id);
  }

  @Override
  public int size() {
    return memory.size();
  }

  @Override
  public List<Message> messages() {
    return memory.messages();
  }

  Message get(int i) {
    return memory.get(i);
  }

  /** Where the message with this id is stored, if it is. */
  Optional<MessageRange> range(MessageId id) {
    int i = memory.indexOf(id);
    return i < 0 ? Optional.empty() : Optional.of(ranges.get(i));
  }

  /**
   * Reads a message back from its byte range in the file and decodes it.
   *
   * @throws LogFormatException when the bytes are not the JSON of the message {@code r} names
   * @throws LogIOException when the file cannot be read
   */
  Message readBack(MessageRange r) {
    int i = memory.indexOf(r.id());
    long line = i < 0 || !ranges.get(i).equals(r) ? 0 : lineNumbers.get(i);
    String text = new String(file.read(r.start(), r.end()), StandardCharsets.UTF_8);
    Message m;
    try {
      m = codec.readLine(text);
    } catch (MessageFormatException e) {
      throw new LogFormatException(
          file.path(),
          line,
          r.start(),
          "invalid JSON at byte range " + r.start() + "-" + r.end() + ": " + e.getMessage(),
          e);
    }
    if (!m.id().equals(r.id())) {
      throw new LogFormatException(
          file.path(),
          line,
          r.start(),
          "byte range "
              + r.start()
              + "-"
              + r.end()
              + " holds message "
              + m.id()
              + ", not "
              + r.id(),
          null);
    }
    return m;
  }

  Path path() {
    return file.path();
  }

  boolean damaged() {
    return file.damaged();
  }

  void close() {
    file.close();
  }
}
