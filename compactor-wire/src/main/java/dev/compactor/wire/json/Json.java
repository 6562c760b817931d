package dev.compactor.wire.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON tree helpers of every shape in this module: one mapper, lenient field access, and the
 * conversion between trees and the plain Java values of {@link
 * dev.compactor.core.message.MessageMetadata#extra()}.
 *
 * <p>Two mappers, alike but for fractions: {@link #MAPPER} reads them as {@link
 * java.math.BigDecimal}, so a provider body is written back exactly as it was sent; {@link
 * #TRANSCRIPTS} reads them as doubles, as the native log does ({@link MessageCodec}), so a message
 * imported from a transcript equals the message read back from the log. Both accept strings of any
 * length (tool outputs can be huge) and refuse trailing content after a value. Thread-safe.
 */
public final class Json {
  private Json() {}

  /** The mapper of provider bodies: fractions as BigDecimal. */
  public static final JsonMapper MAPPER =
      builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

  /** The mapper of transcripts read into messages: fractions as double, as in the native log. */
  public static final JsonMapper TRANSCRIPTS = builder().build();

  private static JsonMapper.Builder builder() {
    return JsonMapper.builder(
            JsonFactory.builder()
                .streamReadConstraints(
                    StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
                .build())
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  }

  public static final JsonNodeFactory NODES = MAPPER.getNodeFactory();

  public static ObjectNode object() {
    return NODES.objectNode();
  }

  public static ArrayNode array() {
    return NODES.arrayNode();
  }

  /**
   * Parses JSON text.
   *
   * @throws JsonProcessingException when the text is not exactly one JSON value
   */
  public static JsonNode parse(String text) throws JsonProcessingException {
    return MAPPER.readTree(text);
  }

  /** Parses JSON text, or returns null when it is blank or not JSON. */
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
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }

  /** A parse error in one line, without Jackson's source dump. */
  public static String describe(JsonProcessingException e) {
    String msg = e.getOriginalMessage();
    if (msg != null) {
      msg =
          msg.replace(
              ": was expecting (JSON String, Number, Array, Object or token 'null', 'true' or"
                  + " 'false')",
              "");
    }
    if (msg != null && msg.length() > 200) {
      msg = msg.substring(0, 200) + "…";
    }
    JsonLocation loc = e.getLocation();
    return loc == null
        ? msg
        : msg + " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
  }

  /** The text of a string field, or null when absent or not a string. */
  public static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isTextual() ? v.textValue() : null;
  }

  /**
   * A scalar field as text: strings as they are, numbers and booleans printed; null when absent,
   * null or a container. (Error bodies put codes in either form.)
   */
  public static String scalar(JsonNode node, String field) {
    if (node == null || !node.isObject()) {
      return null;
    }
    JsonNode v = node.get(field);
    if (v == null || v.isNull() || v.isContainerNode()) {
      return null;
    }
    return v.asText();
  }

  /** Whether a boolean field is present and true. */
  public static boolean flag(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isBoolean() && v.booleanValue();
  }

  /**
   * A token-count-like field: a number (negative ones count as 0, fractions are cut) or a string
   * holding a whole number; -1 when absent or anything else.
   */
  public static long count(JsonNode node, String field) {
    if (node == null || !node.isObject()) {
      return -1;
    }
    JsonNode v = node.get(field);
    if (v == null) {
      return -1;
    }
    if (v.isNumber()) {
      return Math.max(0, v.longValue());
    }
    if (v.isTextual()) {
      try {
        return Math.max(-1, Long.parseLong(v.textValue().trim()));
      } catch (NumberFormatException e) {
        return -1;
      }
    }
    return -1;
  }

  /** {@link #count} as a Long, or null when it is -1. */
  public static Long longOrNull(JsonNode node, String field) {
    long v = count(node, field);
    return v < 0 ? null : v;
  }

  /** {@link #count}, with 0 for absent. */
  public static long countOrZero(JsonNode node, String field) {
    return Math.max(0, count(node, field));
  }

  /**
   * A node as plain Java values: String, Integer/Long/BigInteger (the smallest that holds it),
   * BigDecimal or Double (as the node was read), Boolean, null, List and Map (in source order) of
   * those — the representation of {@link dev.compactor.core.message.MessageMetadata#extra()}
   * values, the same {@link MessageCodec} gives when it reads a message.
   */
  public static Object plain(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    if (node.isObject()) {
      Map<String, Object> m = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : node.properties()) {
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
      return node.textValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    if (node.isIntegralNumber()) {
      return node.canConvertToInt()
          ? (Object) node.intValue()
          : node.canConvertToLong() ? (Object) node.longValue() : node.bigIntegerValue();
    }
    if (node.isBigDecimal()) {
      return node.decimalValue();
    }
    if (node.isNumber()) {
      return node.doubleValue();
    }
    return node.asText();
  }

  /** A plain object node as a map (see {@link #plain}); an empty map for anything else. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> plainObject(JsonNode node) {
    return node != null && node.isObject()
        ? (Map<String, Object>) plain(node)
        : new LinkedHashMap<>();
  }

  /** Plain Java values (see {@link #plain}) as a JSON tree. */
  public static JsonNode tree(Object plain) {
    return plain == null ? NODES.nullNode() : MAPPER.valueToTree(plain);
  }

  /** Every field of {@code obj} not in {@code known}, as plain values, in source order. */
  public static Map<String, Object> rest(JsonNode obj, Set<String> known) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (obj != null && obj.isObject()) {
      for (Map.Entry<String, JsonNode> e : obj.properties()) {
        if (!known.contains(e.getKey())) {
          out.put(e.getKey(), plain(e.getValue()));
        }
      }
    }
    return out;
  }

  /**
   * A timestamp: an ISO-8601 text with or without offset (without one it is taken as UTC; a space
   * may separate date and time), or a number of epoch seconds (milliseconds when larger than
   * 10^11). Null when absent.
   *
   * @throws DateTimeParseException when present but unreadable
   */
  public static Instant timestamp(JsonNode v) {
    if (v == null || v.isNull() || v.isMissingNode()) {
      return null;
    }
    if (v.isNumber()) {
      double d = v.doubleValue();
      if (Math.abs(d) > 1e11) {
        return Instant.ofEpochMilli((long) d);
      }
      long secs = (long) Math.floor(d);
      long nanos = Math.round((d - secs) * 1e9);
      return Instant.ofEpochSecond(secs, Math.min(nanos, 999_999_999L));
    }
    if (!v.isTextual()) {
      throw new DateTimeParseException("not a timestamp: " + v, v.toString(), 0);
    }
    String s = v.textValue().trim();
    if (s.length() > 10 && s.charAt(10) == ' ') {
      s = s.substring(0, 10) + 'T' + s.substring(11);
    }
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (DateTimeParseException e) {
      try {
        return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
      } catch (DateTimeParseException e2) {
        return Instant.parse(s);
      }
    }
  }
}
