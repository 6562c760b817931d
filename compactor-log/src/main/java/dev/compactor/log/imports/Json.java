package dev.compactor.log.imports;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
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

/** JSON helpers shared by the importers: tree access, plain-value conversion, timestamps. */
final class Json {
  static final ObjectMapper MAPPER =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  private Json() {}

  /** A parse error in one line, without Jackson's source dump. */
  static String describe(JsonProcessingException e) {
    String msg = e.getOriginalMessage();
    if (msg != null) {
      // no source description: it names a Jackson feature, not the user's input
      msg = msg.replaceAll("\\[Source: [^;\\]]*(\\([^)]*\\))?; ", "[");
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
  static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isTextual() ? v.textValue() : null;
  }

  /** Whether a boolean field is present and true. */
  static boolean flag(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isBoolean() && v.booleanValue();
  }

  /** A non-negative whole number field, or -1 when absent or not a number. */
  static long count(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isNumber() ? Math.max(0, v.longValue()) : -1;
  }

  /** The compact JSON text of a node. */
  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }

  /**
   * A node as plain Java JSON values: String, Number, Boolean, null, List and Map (insertion
   * ordered) of those.
   */
  static Object plain(JsonNode n) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return null;
    }
    if (n.isTextual()) {
      return n.textValue();
    }
    if (n.isBoolean()) {
      return n.booleanValue();
    }
    if (n.isNumber()) {
      if (n.isIntegralNumber()) {
        return n.canConvertToLong() ? (Object) n.longValue() : n.bigIntegerValue();
      }
      if (n.isBigDecimal()) {
        return n.decimalValue();
      }
      return n.doubleValue();
    }
    if (n.isArray()) {
      List<Object> out = new ArrayList<>(n.size());
      for (JsonNode e : n) {
        out.add(plain(e));
      }
      return out;
    }
    if (n.isObject()) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : n.properties()) {
        out.put(e.getKey(), plain(e.getValue()));
      }
      return out;
    }
    return n.asText();
  }

  /** Every field of {@code obj} not in {@code known}, as plain values, in source order. */
  static Map<String, Object> rest(JsonNode obj, Set<String> known) {
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
   * A timestamp: an ISO-8601 text with or without offset (without one it is taken as UTC), or a
   * number of epoch seconds (milliseconds when larger than 10^11). Null when absent; throws {@link
   * DateTimeParseException} when present but unreadable.
   */
  static Instant timestamp(JsonNode v) {
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
