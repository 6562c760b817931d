package dev.compactor.testkit.model;

import com.fasterxml.jackson.databind.JsonNode;

/** Text of a content value in any of the three formats. */
final class Texts {
  private Texts() {}

  /**
   * A string content as it is; an array of content parts or blocks as the concatenation of their
   * {@code text} fields; anything else empty.
   */
  static String of(JsonNode content) {
    if (content == null || content.isNull() || content.isMissingNode()) {
      return "";
    }
    if (content.isTextual()) {
      return content.asText();
    }
    if (content.isArray()) {
      StringBuilder sb = new StringBuilder();
      for (JsonNode part : content) {
        if (part.isTextual()) {
          sb.append(part.asText());
        } else if (part.path("text").isTextual()) {
          sb.append(part.get("text").asText());
        }
      }
      return sb.toString();
    }
    return "";
  }

  /** Characters of every string value under {@code node}, keys excluded. */
  static long characters(JsonNode node) {
    if (node == null) {
      return 0;
    }
    if (node.isTextual()) {
      return node.asText().length();
    }
    long n = 0;
    for (JsonNode child : node) {
      n += characters(child);
    }
    return n;
  }
}
