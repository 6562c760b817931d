package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An importer of a chat document: a message array, or a request body with {@code messages} (see
 * {@link JsonFormats#messageList}). A document without such a list is rejected with the reason;
 * only its list is handed to {@link #detect(JsonNode, JsonNode)}.
 */
abstract class MessageListImporter extends JsonDocumentImporter {
  /**
   * @param name the format's unique name
   * @param description one line describing the format, for listings
   */
  MessageListImporter(String name, String description) {
    super(name, description);
  }

  @Override
  final Detection detect(JsonNode root) {
    String problem = JsonFormats.messageListProblem(root);
    return problem != null
        ? Detection.reject(problem)
        : detect(root, JsonFormats.messageList(root));
  }

  /**
   * Whether the document, whose message list {@code messages} is a chat array, looks like this
   * format; never throws for another format.
   */
  abstract Detection detect(JsonNode root, JsonNode messages);
}
