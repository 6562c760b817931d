package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.json.MessageCodec;
import dev.compactor.wire.json.MessageFormatException;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Compactor's own {@code conversation.jsonl} (the master log format of {@link MessageCodec}): read
 * as it is, every field kept.
 */
final class NativeImporter implements Importer {
  static final String NAME = "compactor";
  private static final MessageCodec CODEC = new MessageCodec();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Compactor conversation.jsonl: one {id, role, content, ...} per line";
  }

  @Override
  public Detection detect(ImportSource source) throws IOException {
    Detection notLines = JsonFormats.notJsonLines(source);
    if (notLines != null) {
      return notLines;
    }
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
    List<String> notes = new ArrayList<>();
    try (BufferedReader r = source.openReader()) {
      String line;
      int n = 0;
      while ((line = r.readLine()) != null) {
        n++;
        if (line.isBlank()) {
          continue;
        }
        try {
          messages.add(CODEC.readLine(line));
        } catch (MessageFormatException e) {
          throw new ImportException(source.name() + " line " + n + ": " + e.getMessage(), e);
        }
      }
    }
    return List.of(
        new ImportedConversation(source.baseName(), messages, java.util.Map.of(), notes));
  }
}
