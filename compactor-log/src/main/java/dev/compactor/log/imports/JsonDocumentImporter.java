package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An importer of a format that is one JSON document: its detection parses the document first (the
 * {@link ImportSource} caches it for every importer): an empty, binary or malformed source is
 * rejected with the reason, and only a parsed root is handed to {@link #detect(JsonNode)}.
 */
abstract class JsonDocumentImporter extends FormatImporter {
  /**
   * @param name the format's unique name
   * @param description one line describing the format, for listings
   */
  JsonDocumentImporter(String name, String description) {
    super(name, description, "JSON text");
  }

  @Override
  final Detection detectContent(ImportSource source) throws IOException {
    JsonNode root;
    try {
      root = source.json();
    } catch (ImportException e) {
      String prefix = source.name() + ": ";
      return Detection.reject(
          e.getMessage().startsWith(prefix)
              ? e.getMessage().substring(prefix.length())
              : e.getMessage());
    }
    return detect(root);
  }

  /** Whether the parsed document looks like this format; never throws for another format. */
  abstract Detection detect(JsonNode root);

  /**
   * Checks that {@code messages} is a list of chat messages before it is read.
   *
   * @param what the list's name in the message, e.g. {@code messages}
   * @param arrayPath where the list is in the document (field names and array indexes from the
   *     root, empty for a root array; see {@link ImportSource#locate}), so that a bad first entry
   *     is named by line, column and byte offset
   * @throws ImportException naming the source, what is wrong with the list and where
   * @throws IOException when the source cannot be read again to locate the entry
   */
  static void requireChatArray(
      ImportSource source, JsonNode messages, String what, List<?> arrayPath) throws IOException {
    String problem = JsonFormats.chatArrayProblem(messages, what);
    if (problem == null) {
      return;
    }
    String at = null;
    if (messages != null && messages.isArray() && !messages.isEmpty()) {
      at = source.locate(arrayPath, java.util.Set.of(0)).get(0);
    } else if (!arrayPath.isEmpty() && arrayPath.get(0) instanceof Integer entry) {
      // The list is missing or not an array: name where its entry starts.
      at = source.locate(List.of(), java.util.Set.of(entry)).get(entry);
      at = at == null ? null : "entry at " + at;
    }
    throw new ImportException(source.name() + ": " + problem + (at == null ? "" : " (" + at + ")"));
  }

  /**
   * The {@link JsonFormats#messageList} of {@code root} (the document itself or its {@code
   * messages}), after {@link #requireChatArray} checked it.
   */
  static JsonNode requireMessageList(ImportSource source, JsonNode root) throws IOException {
    JsonNode messages = JsonFormats.messageList(root);
    requireChatArray(
        source, messages, JsonFormats.messageListName(root), JsonFormats.messageListPath(root));
    return messages;
  }

  /**
   * The conversation of a document whose field {@code field} is an OpenAI-shaped chat array,
   * checked by {@link #requireChatArray} then mapped by {@link OpenAiMessages}.
   *
   * @param notMetadata the top-level fields left out of the conversation's metadata (the others are
   *     its metadata)
   * @param formatNotes the format's own notes, after those of mapping the messages
   */
  static ImportedConversation openAiConversation(
      ImportSource source,
      JsonNode root,
      String field,
      Set<String> notMetadata,
      String name,
      List<String> formatNotes)
      throws IOException {
    requireChatArray(source, root.get(field), field, List.of(field));
    List<String> notes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<Message> messages =
        OpenAiMessages.map(root.get(field), field, notes, problems, source, List.of(field));
    notes.addAll(formatNotes);
    Map<String, Object> metadata = Json.rest(root, notMetadata);
    return Assembly.conversation(name, messages, metadata, notes, problems, m -> true);
  }
}
