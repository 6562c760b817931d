package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;

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
   * @throws ImportException naming the source and what is wrong with the list
   */
  static void requireChatArray(ImportSource source, JsonNode messages, String what) {
    String problem = JsonFormats.chatArrayProblem(messages, what);
    if (problem != null) {
      throw new ImportException(source.name() + ": " + problem);
    }
  }
}
