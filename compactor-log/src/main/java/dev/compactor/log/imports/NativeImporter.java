package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.json.MessageCodec;
import dev.compactor.wire.json.MessageFormatException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Compactor's own {@code conversation.jsonl} (the master log format of {@link MessageCodec}): read
 * as it is, every field kept. A line that is not a message (malformed JSON, a field of the wrong
 * type) is skipped and reported as a problem with its line and byte offset; the file is still read
 * as this format.
 */
final class NativeImporter extends FormatImporter {
  static final String NAME = "compactor";
  private static final MessageCodec CODEC = new MessageCodec();

  NativeImporter() {
    super(
        NAME, "Compactor conversation.jsonl: one {id, role, content, ...} per line", "JSON lines");
  }

  @Override
  Detection detectContent(ImportSource source) throws IOException {
    JsonNode first;
    try {
      first = CODEC.parseLine(source.firstLines(1).get(0));
    } catch (MessageFormatException e) {
      return Detection.reject("the first line is not one JSON value: " + e.getMessage());
    }
    if (!MessageCodec.isNative(first)) {
      return Detection.reject("the first line has no string \"id\" with a role and content");
    }
    return Detection.match(90, "JSON lines of {id, role, content}");
  }

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    List<Message> messages = new ArrayList<>();
    List<String> bad = new ArrayList<>();
    List<String> badUtf8 = new ArrayList<>();
    try (JsonLines in = JsonLines.of(source)) {
      JsonLines.Line line;
      while ((line = in.next()) != null) {
        if (line.text().isBlank()) {
          continue;
        }
        try {
          messages.add(CODEC.readLine(line.text()));
        } catch (MessageFormatException e) {
          bad.add(line.where() + ": " + e.getMessage());
          continue;
        }
        line.noteInvalidUtf8(badUtf8);
      }
    }
    if (messages.isEmpty() && !bad.isEmpty()) {
      throw new ImportException(source.name() + ": no line is a message; " + bad.get(0));
    }
    List<String> problems = new ArrayList<>();
    Assembly.addCapped(problems, bad, "malformed line(s) skipped");
    Assembly.addCapped(
        problems, badUtf8, "line(s) with invalid UTF-8, read with U+FFFD in its place");
    return List.of(
        new ImportedConversation(
            source.baseName(), messages, java.util.Map.of(), List.of(), problems));
  }
}
