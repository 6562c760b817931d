package dev.compactor.server.proxy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A request body parsed from its bytes, with where each value of the top-level object and each
 * element of its arrays lies in those bytes, so that {@link ChainMemo} can tell by comparing bytes
 * that a request's leading items are the very ones of an earlier request. The tree is the one
 * {@code Json.MAPPER.readTree(raw)} gives; a body this reader does not take apart (not a UTF-8 JSON
 * object, a top-level key given twice) is read whole by that and has no spans. Not thread-safe; one
 * per request.
 */
final class ParsedBody {
  /** The bytes as the client sent them. */
  final byte[] raw;

  /** The JSON, or null when the body is not JSON. */
  final JsonNode root;

  private final Map<JsonNode, long[]> spans;

  /** Reads one value of the body, in place (the body's end is checked once, at its end). */
  private static final ObjectReader VALUES =
      Json.MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private ParsedBody(byte[] raw, JsonNode root, Map<JsonNode, long[]> spans) {
    this.raw = raw;
    this.root = root;
    this.spans = spans;
  }

  /** Parses {@code raw}: never throws; a body that is not JSON has a null {@link #root}. */
  static ParsedBody parse(byte[] raw) {
    try {
      ParsedBody b = withSpans(raw);
      if (b != null) {
        return b;
      }
    } catch (IOException | RuntimeException e) {
      // read it whole below, exactly as before: it decides what the body is
    }
    return new ParsedBody(raw, whole(raw), Map.of());
  }

  /**
   * Where {@code node} lies in {@link #raw}: {@code {start, end}} (end exclusive), or null when it
   * is not a top-level value or an element of a top-level array (or the body has no spans).
   */
  long[] span(JsonNode node) {
    return spans.get(node);
  }

  private static JsonNode whole(byte[] raw) {
    try {
      JsonNode n = Json.MAPPER.readTree(raw);
      return n == null || n.isMissingNode() ? null : n;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Records where a node lies; only nodes the reader makes anew each time (objects, arrays,
   * non-empty strings), never the factory's shared ones ({@code null}, booleans, small numbers, the
   * empty string), which one identity cannot place.
   */
  private static void mark(Map<JsonNode, long[]> spans, JsonNode n, long from, long to) {
    if (n.isContainerNode() || (n.isTextual() && !n.textValue().isEmpty())) {
      spans.put(n, new long[] {from, to});
    }
  }

  /** The body with spans, or null when this reader leaves it to {@link #whole}. */
  private static ParsedBody withSpans(byte[] raw) throws IOException {
    Map<JsonNode, long[]> spans = new IdentityHashMap<>();
    try (JsonParser p = Json.MAPPER.createParser(raw)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      ObjectNode root = Json.MAPPER.getNodeFactory().objectNode();
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        if (root.has(name)) {
          return null; // which of the two counts is the tree reader's to say
        }
        JsonToken v = p.nextToken();
        long start = p.currentTokenLocation().getByteOffset();
        if (start < 0) {
          return null; // not read as bytes
        }
        JsonNode value;
        if (v == JsonToken.START_ARRAY) {
          ArrayNode array = Json.MAPPER.getNodeFactory().arrayNode();
          while (p.nextToken() != JsonToken.END_ARRAY) {
            long from = p.currentTokenLocation().getByteOffset();
            JsonNode element = VALUES.readTree(p);
            if (element == null) {
              return null;
            }
            array.add(element);
            mark(spans, element, from, p.currentLocation().getByteOffset());
          }
          value = array;
        } else {
          value = VALUES.readTree(p);
          if (value == null) {
            return null;
          }
        }
        mark(spans, value, start, p.currentLocation().getByteOffset());
        root.set(name, value);
      }
      if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
        return null; // trailing content: the tree reader refuses it
      }
      return new ParsedBody(raw, root, spans);
    }
  }
}
