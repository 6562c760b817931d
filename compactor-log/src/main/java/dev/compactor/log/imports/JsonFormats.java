package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.wire.json.Json;
import java.util.List;
import java.util.Set;

/** Detection helpers for the formats that are one JSON document. */
final class JsonFormats {
  /** Content block types that only Anthropic's messages format has. */
  private static final Set<String> ANTHROPIC_BLOCK_TYPES =
      Set.of("tool_use", "tool_result", "thinking", "redacted_thinking");

  private JsonFormats() {}

  /**
   * The message list of a chat document: the document itself when it is an array, else its {@code
   * messages} field (a request body), or null when it has neither.
   */
  static JsonNode messageList(JsonNode root) {
    if (root.isArray()) {
      return root;
    }
    return root.isObject() ? root.get("messages") : null;
  }

  /** What {@link #chatArrayProblem} calls the {@link #messageList} of {@code root}. */
  static String messageListName(JsonNode root) {
    return root.isArray() ? "the array" : "messages";
  }

  /** Where the {@link #messageList} of {@code root} is, as {@link ImportSource#locate} takes it. */
  static List<Object> messageListPath(JsonNode root) {
    return root.isArray() ? List.of() : List.of("messages");
  }

  /**
   * Null when {@code root} is a chat message array or a request body with one; otherwise why not.
   */
  static String messageListProblem(JsonNode root) {
    JsonNode messages = messageList(root);
    if (messages == null) {
      return "the document is " + kind(root) + ", not a message array nor {\"messages\"}";
    }
    return chatArrayProblem(messages, messageListName(root));
  }

  /** Short description of a JSON node's kind for rejection messages. */
  static String kind(JsonNode n) {
    if (n == null || n.isMissingNode()) {
      return "nothing";
    }
    if (n.isObject()) {
      StringBuilder sb = new StringBuilder("an object with fields ");
      int k = 0;
      for (var it = n.fieldNames(); it.hasNext() && k < 6; k++) {
        sb.append(k == 0 ? "" : ", ").append(it.next());
      }
      if (n.size() > 6) {
        sb.append(", …");
      }
      return n.isEmpty() ? "an empty object" : sb.toString();
    }
    if (n.isArray()) {
      return n.isEmpty() ? "an empty array" : "an array of " + n.size();
    }
    return "a " + n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT) + " value";
  }

  /**
   * Null when {@code array} is a non-empty array whose first element is an object with a string
   * {@code role}; otherwise why not.
   */
  static String chatArrayProblem(JsonNode array, String what) {
    if (array == null || !array.isArray()) {
      return what + " is " + kind(array) + ", not an array of messages";
    }
    if (array.isEmpty()) {
      return what + " is an empty array";
    }
    JsonNode first = array.get(0);
    if (!first.isObject() || Json.text(first, "role") == null) {
      return what + "[0] has no string \"role\"";
    }
    return null;
  }

  /** Whether any message content in {@code array} has an Anthropic-only block type. */
  static boolean hasAnthropicBlocks(JsonNode array) {
    for (JsonNode m : array) {
      JsonNode c = m.get("content");
      if (c != null && c.isArray()) {
        for (JsonNode b : c) {
          String t = Json.text(b, "type");
          if (t != null && ANTHROPIC_BLOCK_TYPES.contains(t)) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
