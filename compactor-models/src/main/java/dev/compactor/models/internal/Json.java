package dev.compactor.models.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Jackson helpers shared by the clients. Thread-safe. */
public final class Json {
  private Json() {}

  /** The one mapper; BigDecimal for floats keeps numbers as sent. */
  public static final JsonMapper MAPPER =
      JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  public static final JsonNodeFactory NODES = MAPPER.getNodeFactory();

  public static ObjectNode object() {
    return NODES.objectNode();
  }

  /** Parses JSON text; throws on malformed input. */
  public static JsonNode parse(String text) throws JsonProcessingException {
    return MAPPER.readTree(text);
  }

  /** Parses JSON text, or returns null when it is not JSON. */
  public static JsonNode tryParse(String text) {
    if (text == null || text.isBlank()) {
      return null;
    }
    try {
      return MAPPER.readTree(text);
    } catch (JsonProcessingException e) {
      return null;
    }
  }

  /** Compact JSON text of a node. */
  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }

  /** A field's value as text: strings as they are, numbers and booleans printed; else null. */
  public static String text(JsonNode node, String field) {
    if (node == null || !node.isObject()) {
      return null;
    }
    JsonNode v = node.get(field);
    if (v == null || v.isNull() || v.isContainerNode()) {
      return null;
    }
    return v.asText();
  }

  /** A field's value when it is a non-negative integer (also as a numeric string), else -1. */
  public static long count(JsonNode node, String field) {
    if (node == null || !node.isObject()) {
      return -1;
    }
    JsonNode v = node.get(field);
    if (v == null) {
      return -1;
    }
    if (v.canConvertToLong() && v.isIntegralNumber()) {
      return Math.max(-1, v.asLong());
    }
    if (v.isTextual()) {
      try {
        return Math.max(-1, Long.parseLong(v.asText().trim()));
      } catch (NumberFormatException e) {
        return -1;
      }
    }
    return -1;
  }

  /** A field's value as a Long when present and an integer, else null. */
  public static Long longOrNull(JsonNode node, String field) {
    long v = count(node, field);
    return v < 0 ? null : v;
  }

  /**
   * A node as plain Java values: String, Integer/Long/BigInteger, BigDecimal, Boolean, null, List,
   * Map.
   */
  public static Object plain(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node.isObject()) {
      Map<String, Object> m = new LinkedHashMap<>();
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        m.put(e.getKey(), plain(e.getValue()));
      }
      return m;
    }
    if (node.isArray()) {
      List<Object> l = new ArrayList<>(node.size());
      for (JsonNode n : node) {
        l.add(plain(n));
      }
      return l;
    }
    if (node.isTextual()) {
      return node.asText();
    }
    if (node.isBoolean()) {
      return node.asBoolean();
    }
    if (node.isIntegralNumber()) {
      return node.canConvertToInt()
          ? (Object) node.intValue()
          : node.canConvertToLong() ? (Object) node.longValue() : node.bigIntegerValue();
    }
    if (node.isNumber()) {
      return node.decimalValue();
    }
    return node.asText();
  }

  /** Plain Java values as a JSON tree. */
  public static JsonNode tree(Object plain) {
    return MAPPER.valueToTree(plain);
  }
}
