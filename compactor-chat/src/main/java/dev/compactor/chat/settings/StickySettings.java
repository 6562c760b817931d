package dev.compactor.chat.settings;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.chat.settings.SummarySettings.Activation;
import dev.compactor.chat.settings.SummarySettings.Injection;
import dev.compactor.chat.settings.SummarySettings.MainSystemMessage;
import dev.compactor.chat.settings.SummarySettings.MessageSelection;
import dev.compactor.chat.settings.SummarySettings.Summarization;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.message.Role;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The compaction settings a chat has been given, exactly as far as they were given: a sparse JSON
 * object in the request's snake_case shape ({@code {"summary": {...}, "provider": {...}}}) holding
 * only the fields that were set, normalized ({@code "200_000"} is kept as {@code 200000}). Fields
 * not given take their defaults in {@link #effective()}; so a default changed in a later version
 * applies to every chat that never set that field.
 *
 * <p><b>Merging</b> ({@link #merge}) follows JSON merge patch: objects merge field by field, a
 * value replaces, {@code null} removes the field (it takes its default again; {@code "summary":
 * null} removes the summary settings altogether). So {@code {"summary": {"enabled": false}}} keeps
 * every other summary setting and {@code {"summary": {"enabled": true}}} switches them back on.
 *
 * <p><b>Validation</b> is strict and happens before anything is merged: unknown fields, wrong types
 * and values out of range fail with a {@link ChatTaskException} of code {@link
 * Code#INVALID_SETTINGS} naming the field path and the value; so do a {@code summarization.model}
 * the model catalog does not know, both kinds enabled at once, and enabled summary compaction with
 * both activation thresholds off. Nothing of an invalid patch is merged.
 *
 * <p>Immutable, thread-safe.
 */
public final class StickySettings {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** No settings. */
  public static final StickySettings NONE = new StickySettings(NODES.objectNode());

  private final ObjectNode doc;
  private final CompactionSettings effective;

  private StickySettings(ObjectNode doc) {
    this.doc = doc;
    this.effective = resolve(doc);
  }

  /**
   * Settings as stored by {@link #toJson()}; null or empty text means none.
   *
   * @throws IllegalStateException when the stored text is not a settings object (a corrupt store)
   */
  public static StickySettings fromJson(String stored) {
    if (stored == null || stored.isBlank()) {
      return NONE;
    }
    try {
      JsonNode n = JSON.readTree(stored);
      if (!(n instanceof ObjectNode o)) {
        throw new IllegalStateException("stored compaction settings are not a JSON object");
      }
      return new StickySettings(o.deepCopy());
    } catch (JsonProcessingException | ChatTaskException e) {
      throw new IllegalStateException("stored compaction settings are invalid: " + stored, e);
    }
  }

  /**
   * These settings with {@code patch} merged in.
   *
   * @param patch the request's {@code compaction} value: an object, {@code null} (JSON null: remove
   *     every setting) or Java null (no change)
   * @param catalog the catalog {@code summarization.model} must be known to
   * @throws ChatTaskException code {@link Code#INVALID_SETTINGS} naming the field and value
   */
  public StickySettings merge(JsonNode patch, ModelCatalog catalog) {
    Objects.requireNonNull(catalog, "catalog");
    if (patch == null || patch.isMissingNode()) {
      return this;
    }
    if (patch.isNull()) {
      return NONE;
    }
    JsonNode normalized = normalize(patch, Schema.ROOT, "compaction", catalog);
    ObjectNode merged = doc.deepCopy();
    mergeInto(merged, (ObjectNode) normalized);
    return new StickySettings(merged);
  }

  /** The settings with defaults applied. */
  public CompactionSettings effective() {
    return effective;
  }

  /** Whether no setting was ever given (or all were removed). */
  public boolean isEmpty() {
    return doc.isEmpty();
  }

  /** The sparse settings as given, normalized; a copy. */
  public ObjectNode toNode() {
    return doc.deepCopy();
  }

  /** The sparse settings as compact JSON text, the stored form. */
  public String toJson() {
    return doc.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StickySettings s && s.doc.equals(doc);
  }

  @Override
  public int hashCode() {
    return doc.hashCode();
  }

  @Override
  public String toString() {
    return toJson();
  }

  // ------------------------------------------------------------------ schema

  private enum Kind {
    OBJECT,
    BOOLEAN,
    /** whole number >= min */
    WHOLE,
    /** whole number >= min, or false (off) */
    WHOLE_OR_FALSE,
    ENUM,
    MODEL,
    TEXT,
    TEMPLATE
  }

  private record Schema(
      Kind kind, long min, long max, List<String> values, Map<String, Schema> fields) {
    static final Schema BOOLEAN = new Schema(Kind.BOOLEAN, 0, 0, List.of(), Map.of());
    static final Schema MODEL = new Schema(Kind.MODEL, 0, 0, List.of(), Map.of());
    static final Schema TEXT = new Schema(Kind.TEXT, 0, 0, List.of(), Map.of());
    static final Schema TEMPLATE = new Schema(Kind.TEMPLATE, 0, 0, List.of(), Map.of());

    static Schema whole(long min, long max) {
      return new Schema(Kind.WHOLE, min, max, List.of(), Map.of());
    }

    static Schema wholeOrFalse(long min, long max) {
      return new Schema(Kind.WHOLE_OR_FALSE, min, max, List.of(), Map.of());
    }

    static Schema oneOf(String... values) {
      return new Schema(Kind.ENUM, 0, 0, List.of(values), Map.of());
    }

    static Schema object(Object... nameAndSchema) {
      Map<String, Schema> m = new LinkedHashMap<>();
      for (int i = 0; i < nameAndSchema.length; i += 2) {
        m.put((String) nameAndSchema[i], (Schema) nameAndSchema[i + 1]);
      }
      return new Schema(Kind.OBJECT, 0, 0, List.of(), m);
    }

    static final Schema SUMMARY =
        object(
            "enabled",
            BOOLEAN,
            "activation",
            object(
                "message_count",
                wholeOrFalse(1, Integer.MAX_VALUE),
                "token_count",
                wholeOrFalse(1, Long.MAX_VALUE)),
            "message_selection",
            object(
                "main_system_message",
                oneOf("exclude", "include"),
                "keep_last_messages",
                whole(0, Integer.MAX_VALUE)),
            "summarization",
            object(
                "model",
                MODEL,
                "instructions",
                TEXT,
                "max_output_tokens",
                whole(1, Integer.MAX_VALUE)),
            "injection",
            object("role", oneOf("system", "user"), "template", TEMPLATE));

    static final Schema PROVIDER =
        object(
            "enabled",
            BOOLEAN,
            "compact_threshold",
            whole(ProviderSettings.MIN_COMPACT_THRESHOLD, Integer.MAX_VALUE));

    static final Schema ROOT = object("summary", SUMMARY, "provider", PROVIDER);
  }

  // ------------------------------------------------------------------ validation

  private static ChatTaskException invalid(String path, JsonNode value, String problem) {
    return new ChatTaskException(
        Code.INVALID_SETTINGS, path + " " + WholeNumbers.show(value) + " " + problem);
  }

  /** The patch with leaf values checked and normalized; nulls kept (they reset). */
  private static JsonNode normalize(
      JsonNode value, Schema schema, String path, ModelCatalog catalog) {
    if (value.isNull()) {
      return value;
    }
    switch (schema.kind()) {
      case OBJECT -> {
        if (!value.isObject()) {
          throw invalid(path, value, "must be an object");
        }
        ObjectNode out = NODES.objectNode();
        Iterator<Map.Entry<String, JsonNode>> it = value.fields();
        while (it.hasNext()) {
          Map.Entry<String, JsonNode> e = it.next();
          Schema field = schema.fields().get(e.getKey());
          String fieldPath = path + "." + e.getKey();
          if (field == null) {
            throw new ChatTaskException(
                Code.INVALID_SETTINGS,
                fieldPath
                    + " is not a known setting (known in "
                    + path
                    + ": "
                    + String.join(", ", schema.fields().keySet())
                    + ")");
          }
          out.set(e.getKey(), normalize(e.getValue(), field, fieldPath, catalog));
        }
        return out;
      }
      case BOOLEAN -> {
        if (!value.isBoolean()) {
          throw invalid(path, value, "must be true or false");
        }
        return value;
      }
      case WHOLE, WHOLE_OR_FALSE -> {
        if (schema.kind() == Kind.WHOLE_OR_FALSE && value.isBoolean() && !value.booleanValue()) {
          return value;
        }
        BigInteger n = WholeNumbers.parse(value);
        String what =
            schema.kind() == Kind.WHOLE_OR_FALSE
                ? "must be a whole number >= " + schema.min() + " or false"
                : "must be a whole number >= " + schema.min();
        if (n == null) {
          throw invalid(
              path, value, what + (value.isTextual() ? " (digits, optionally grouped by _)" : ""));
        }
        if (n.compareTo(BigInteger.valueOf(schema.min())) < 0) {
          throw invalid(path, value, what);
        }
        if (n.compareTo(BigInteger.valueOf(schema.max())) > 0) {
          throw invalid(path, value, "is too large (at most " + schema.max() + ")");
        }
        // As a parser would read it back: int when it fits, else long.
        return n.bitLength() < 32
            ? NODES.numberNode(n.intValue())
            : NODES.numberNode(n.longValueExact());
      }
      case ENUM -> {
        if (!value.isTextual() || !schema.values().contains(value.textValue())) {
          throw invalid(
              path,
              value,
              "must be one of "
                  + String.join(", ", schema.values().stream().map(v -> "\"" + v + "\"").toList()));
        }
        return value;
      }
      case MODEL -> {
        if (!value.isTextual() || value.textValue().isBlank()) {
          throw invalid(path, value, "must be a provider/model name");
        }
        if (catalog.find(value.textValue()).isEmpty()) {
          throw invalid(path, value, "is not a model the model catalog knows");
        }
        return value;
      }
      case TEXT -> {
        if (!value.isTextual() || value.textValue().isBlank()) {
          throw invalid(path, value, "must be a non-blank string");
        }
        return value;
      }
      case TEMPLATE -> {
        if (!value.isTextual()) {
          throw invalid(path, value, "must be a string");
        }
        if (!value.textValue().contains(SummarySettings.PLACEHOLDER)) {
          throw invalid(path, value, "must contain " + SummarySettings.PLACEHOLDER);
        }
        return value;
      }
    }
    throw new AssertionError(schema.kind());
  }

  private static void mergeInto(ObjectNode target, ObjectNode patch) {
    Iterator<Map.Entry<String, JsonNode>> it = patch.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (v.isNull()) {
        target.remove(e.getKey());
      } else if (v.isObject()) {
        ObjectNode child =
            target.get(e.getKey()) instanceof ObjectNode o ? o : target.putObject(e.getKey());
        mergeInto(child, (ObjectNode) v);
      } else {
        target.set(e.getKey(), v);
      }
    }
  }

  // ------------------------------------------------------------------ resolution

  private static CompactionSettings resolve(ObjectNode doc) {
    SummarySettings summary = doc.has("summary") ? summary(doc.get("summary")) : null;
    ProviderSettings provider = doc.has("provider") ? provider(doc.get("provider")) : null;
    if (summary != null && summary.enabled() && provider != null && provider.enabled()) {
      throw new ChatTaskException(
          Code.INVALID_SETTINGS,
          "compaction.summary and compaction.provider are both enabled; a chat uses one or the"
              + " other (send \"enabled\": false for the one to switch off)");
    }
    if (summary != null
        && summary.enabled()
        && summary.activation().messageCount() == null
        && summary.activation().tokenCount() == null) {
      throw new ChatTaskException(
          Code.INVALID_SETTINGS,
          "compaction.summary.activation has both message_count and token_count off; enabled"
              + " summary compaction would never run (set a threshold, or \"enabled\": false)");
    }
    return new CompactionSettings(summary, provider);
  }

  private static SummarySettings summary(JsonNode s) {
    SummarySettings d = SummarySettings.DEFAULTS;
    JsonNode a = s.path("activation");
    JsonNode sel = s.path("message_selection");
    JsonNode sum = s.path("summarization");
    JsonNode inj = s.path("injection");
    Activation activation =
        new Activation(
            a.has("message_count")
                ? toInt(wholeOrOff(a.get("message_count")))
                : d.activation().messageCount(),
            a.has("token_count") ? wholeOrOff(a.get("token_count")) : d.activation().tokenCount());
    MessageSelection selection =
        new MessageSelection(
            sel.has("main_system_message")
                ? MainSystemMessage.valueOf(
                    sel.get("main_system_message").textValue().toUpperCase(java.util.Locale.ROOT))
                : d.messageSelection().mainSystemMessage(),
            sel.has("keep_last_messages")
                ? sel.get("keep_last_messages").intValue()
                : d.messageSelection().keepLastMessages());
    Summarization summarization =
        new Summarization(
            sum.has("model") ? sum.get("model").textValue() : d.summarization().model(),
            sum.has("instructions")
                ? sum.get("instructions").textValue()
                : d.summarization().instructions(),
            sum.has("max_output_tokens")
                ? sum.get("max_output_tokens").intValue()
                : d.summarization().maxOutputTokens());
    Injection injection =
        new Injection(
            inj.has("role") ? Role.parse(inj.get("role").textValue()) : d.injection().role(),
            inj.has("template") ? inj.get("template").textValue() : d.injection().template());
    boolean enabled = s.has("enabled") ? s.get("enabled").booleanValue() : d.enabled();
    return new SummarySettings(enabled, activation, selection, summarization, injection);
  }

  private static Integer toInt(Long v) {
    return v == null ? null : Math.toIntExact(v);
  }

  private static Long wholeOrOff(JsonNode v) {
    return v.isBoolean() ? null : v.longValue();
  }

  private static ProviderSettings provider(JsonNode p) {
    return new ProviderSettings(
        !p.has("enabled") || p.get("enabled").booleanValue(),
        p.has("compact_threshold") ? p.get("compact_threshold").intValue() : null);
  }

  /**
   * The effective settings as JSON with every field, defaults filled in ({@code null} for a
   * summarization model that follows the chat's model, {@code false} for an activation threshold
   * that is off).
   */
  public static ObjectNode effectiveJson(CompactionSettings s) {
    ObjectNode out = NODES.objectNode();
    if (s.summary() != null) {
      SummarySettings x = s.summary();
      ObjectNode o = out.putObject("summary");
      o.put("enabled", x.enabled());
      ObjectNode a = o.putObject("activation");
      if (x.activation().messageCount() == null) {
        a.put("message_count", false);
      } else {
        a.put("message_count", x.activation().messageCount());
      }
      if (x.activation().tokenCount() == null) {
        a.put("token_count", false);
      } else {
        a.put("token_count", x.activation().tokenCount());
      }
      o.putObject("message_selection")
          .put(
              "main_system_message",
              x.messageSelection().mainSystemMessage().name().toLowerCase(java.util.Locale.ROOT))
          .put("keep_last_messages", x.messageSelection().keepLastMessages());
      o.putObject("summarization")
          .put("model", x.summarization().model())
          .put("instructions", x.summarization().instructions())
          .put("max_output_tokens", x.summarization().maxOutputTokens());
      o.putObject("injection")
          .put("role", x.injection().role().wireName())
          .put("template", x.injection().template());
    }
    if (s.provider() != null) {
      ObjectNode o = out.putObject("provider");
      o.put("enabled", s.provider().enabled());
      o.put("compact_threshold", s.provider().compactThreshold());
    }
    return out;
  }

  /** Helper for tests and callers: parses JSON text into a patch node. */
  public static JsonNode patch(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new ChatTaskException(
          Code.INVALID_SETTINGS,
          "compaction settings are not valid JSON: " + e.getOriginalMessage());
    }
  }

  /** Every settings path, e.g. {@code compaction.summary.activation.message_count}, in order. */
  public static List<String> knownPaths() {
    List<String> out = new ArrayList<>();
    collect(Schema.ROOT, "compaction", out);
    return out;
  }

  private static void collect(Schema s, String path, List<String> out) {
    if (s.kind() != Kind.OBJECT) {
      out.add(path);
      return;
    }
    s.fields().forEach((k, v) -> collect(v, path + "." + k, out));
  }
}
