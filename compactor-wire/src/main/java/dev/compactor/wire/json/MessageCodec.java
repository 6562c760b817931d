package dev.compactor.wire.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
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
import java.util.function.Predicate;

/**
 * Reads and writes {@link Message}s in Compactor's native JSON format, one message per JSON object
 * (one object per line in {@code .jsonl} files).
 *
 * <p>The format, with snake_case field names:
 *
 * <pre>{@code
 * {"id":"m1","role":"assistant","content":"…",
 *  "reasoning":[{"type":"thinking","text":"…","signature":"…"}],
 *  "tool_calls":[{"id":"c1","name":"shell","arguments":"{\"cmd\":\"ls\"}"}],
 *  "tool_call_id":"c0","timestamp":"2025-01-02T03:04:05Z",
 *  "pinned":true,"hidden":true,"ui_only":true,
 *  "metadata":{"model":"gpt-4o","provider":"openai",
 *              "usage":{"input":1,"output":2,"cache_read":3,"cache_write":4,"reasoning":5},
 *              "input":{"messages":3,"digest":"ab12…","model":"gpt-4o"}}}
 * }</pre>
 *
 * <p>{@code id}, {@code role} and {@code content} are always written; everything else is omitted
 * when it has its default value (false, empty list, null, zero usage count) to keep lines small.
 *
 * <p><b>Nothing is dropped.</b> Unknown fields inside {@code metadata} are read into {@link
 * MessageMetadata#extra()} under their own names and written back inside {@code metadata}. Unknown
 * top-level fields are read into {@code extra} under the reserved key {@value #TOP_LEVEL_EXTRA} (a
 * map of field name to value) and written back at the top level. So {@code read(write(m))} equals
 * {@code m}, and reading then writing a native record keeps every field where it was. Extra values
 * are plain JSON values (String, Integer/Long/BigInteger, Double, Boolean, null, List, Map).
 *
 * <p>Reading is strict about the fields it knows (a wrong type is an error naming the field and the
 * value) and lenient about timestamps: ISO-8601 instants, offset date-times, and local date-times
 * (taken as UTC) are accepted; instants are written as {@link Instant#toString()}.
 *
 * <p>Strings of any length are accepted (Jackson's default 20M-character limit is lifted: tool
 * outputs can be huge). Written lines never contain a raw line break; non-ASCII text is written as
 * UTF-8, except that a string holding an unpaired UTF-16 surrogate makes the whole line use {@code
 * \\uXXXX} escapes, so such text survives the round trip too.
 *
 * <p>Instances are immutable and thread-safe; create one and share it.
 */
public final class MessageCodec {

  /**
   * Key of {@link MessageMetadata#extra()} that holds unknown top-level fields (a map from field
   * name to plain JSON value).
   */
  public static final String TOP_LEVEL_EXTRA = "$top_level";

  private static final Set<String> TOP_LEVEL_FIELDS =
      Set.of(
          "id",
          "role",
          "content",
          "reasoning",
          "tool_calls",
          "tool_call_id",
          "timestamp",
          "pinned",
          "hidden",
          "ui_only",
          "metadata");
  private static final Set<String> METADATA_FIELDS = Set.of("model", "provider", "usage", "input");
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final JsonMapper mapper;
  private final ObjectWriter asciiWriter;

  /** A codec with the native format's settings. */
  public MessageCodec() {
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder().maxStringLength(Integer.MAX_VALUE).build())
            .build();
    this.mapper =
        JsonMapper.builder(factory)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();
    this.asciiWriter = mapper.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII);
  }

  // ---------------------------------------------------------------- line level

  /**
   * Parses one line of JSON text: exactly one JSON value, nothing after it.
   *
   * @throws MessageFormatException when the text is not exactly one JSON value
   */
  public JsonNode parseLine(String line) {
    if (line == null || line.isBlank()) {
      throw new MessageFormatException("expected a JSON value, got an empty line");
    }
    try {
      return mapper.readTree(line);
    } catch (JsonProcessingException e) {
      throw new MessageFormatException("invalid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Writes a JSON value as compact single-line text (no trailing line break).
   *
   * @throws MessageFormatException when the value cannot be serialized
   */
  public String formatLine(JsonNode node) {
    try {
      String text = mapper.writeValueAsString(node);
      return hasUnpairedSurrogate(text) ? asciiWriter.writeValueAsString(node) : text;
    } catch (JsonProcessingException e) {
      throw new MessageFormatException("cannot write JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Reads a message from one line of native JSON.
   *
   * @throws MessageFormatException when the line is not JSON or not a native message
   */
  public Message readLine(String line) {
    return read(parseLine(line));
  }

  /**
   * Writes a message as one line of native JSON, without the trailing line break.
   *
   * @throws MessageFormatException when the message's extra fields cannot be written (see {@link
   *     #write})
   */
  public String writeLine(Message message) {
    return formatLine(write(message));
  }

  // ---------------------------------------------------------------- chat store layout

  /**
   * Reads a message stored by the chat store: the native format, or the store's earlier layout,
   * which nested the extra fields in a {@code metadata.extra} object and always wrote {@code
   * metadata.model} and {@code metadata.provider} (null when absent). A record is in the earlier
   * layout when its {@code metadata} holds {@code model}, {@code provider} and an object {@code
   * extra}, and nothing but the typed fields besides; its {@code extra} entries become {@link
   * MessageMetadata#extra()} as they are.
   *
   * @throws MessageFormatException when the line is not JSON or not a message
   */
  public Message readStoredLine(String line) {
    JsonNode node = parseLine(line);
    if (!isNestedLayout(node)) {
      return read(node);
    }
    ObjectNode copy = ((ObjectNode) node).deepCopy();
    ObjectNode meta = (ObjectNode) copy.get("metadata");
    JsonNode nested = meta.remove("extra");
    Message typed = read(copy);
    MessageMetadata md = typed.metadata();
    Map<String, Object> extra = new LinkedHashMap<>(md.extra());
    for (Map.Entry<String, JsonNode> e : nested.properties()) {
      extra.put(e.getKey(), plainValue(e.getValue()));
    }
    return typed.toBuilder()
        .metadata(new MessageMetadata(md.model(), md.provider(), md.usage(), md.input(), extra))
        .build();
  }

  /**
   * Writes a message for the chat store: the native line, except for the one kind of message whose
   * native line would look like the earlier layout (see {@link #readStoredLine}) — model and
   * provider set and {@code extra} holding only the key {@code "extra"} with a map — which is
   * written in that layout so that it reads back unchanged.
   */
  public String writeStoredLine(Message message) {
    ObjectNode node = write(message);
    if (isNestedLayout(node)) {
      ObjectNode meta = (ObjectNode) node.get("metadata");
      JsonNode inner = meta.remove("extra");
      meta.putObject("extra").set("extra", inner);
    }
    return formatLine(node);
  }

  private static final Set<String> NESTED_LAYOUT_METADATA =
      Set.of("model", "provider", "usage", "input", "extra");

  private static boolean isNestedLayout(JsonNode node) {
    JsonNode meta = node == null ? null : node.get("metadata");
    if (meta == null
        || !meta.isObject()
        || !meta.has("model")
        || !meta.has("provider")
        || !meta.path("extra").isObject()) {
      return false;
    }
    for (Map.Entry<String, JsonNode> f : meta.properties()) {
      if (!NESTED_LAYOUT_METADATA.contains(f.getKey())) {
        return false;
      }
    }
    return true;
  }

  // ---------------------------------------------------------------- tree level

  /**
   * True when {@code node} looks like a native message: an object with a non-blank string {@code
   * id}, a {@code role} that is one of the four roles, and a {@code content} that is a string when
   * present. A cheap test for importers; {@link #read} may still reject the record.
   */
  public static boolean isNative(JsonNode node) {
    if (node == null || !node.isObject()) {
      return false;
    }
    JsonNode id = node.get("id");
    JsonNode role = node.get("role");
    JsonNode content = node.get("content");
    if (id == null || !id.isTextual() || id.asText().isBlank()) {
      return false;
    }
    if (role == null || !role.isTextual()) {
      return false;
    }
    try {
      Role.parse(role.asText());
    } catch (IllegalArgumentException e) {
      return false;
    }
    return content == null || content.isNull() || content.isTextual();
  }

  /**
   * Reads a native message.
   *
   * @throws MessageFormatException naming the field and value when {@code node} is not a native
   *     message, a known field has the wrong type, or {@code metadata} uses the reserved key
   *     {@value #TOP_LEVEL_EXTRA}
   */
  public Message read(JsonNode node) {
    if (node == null || !node.isObject()) {
      throw new MessageFormatException(
          "a message must be a JSON object, got "
              + describe(node == null ? NODES.nullNode() : node));
    }
    String id = requiredText(node, "id");
    String roleText = requiredText(node, "role");
    Role role;
    try {
      role = Role.parse(roleText);
    } catch (IllegalArgumentException e) {
      throw new MessageFormatException("message " + id + ": field role: " + e.getMessage(), e);
    }
    Map<String, Object> topLevel = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> f : node.properties()) {
      if (!TOP_LEVEL_FIELDS.contains(f.getKey())) {
        topLevel.put(f.getKey(), plainValue(f.getValue()));
      }
    }
    try {
      Message.Builder b =
          Message.builder(role)
              .id(MessageId.of(id))
              .content(optionalText(node, "content", id))
              .reasoning(readObjects(node, "reasoning", id, MessageCodec::readReasoningBlock))
              .toolCalls(readObjects(node, "tool_calls", id, MessageCodec::readToolCall))
              .toolCallId(optionalText(node, "tool_call_id", id))
              .timestamp(readTimestamp(node.get("timestamp"), id))
              .pinned(flag(node, "pinned", id))
              .hidden(flag(node, "hidden", id))
              .uiOnly(flag(node, "ui_only", id))
              .metadata(readMetadata(node.get("metadata"), topLevel, id));
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new MessageFormatException("message " + id + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes a message in the native format.
   *
   * @throws MessageFormatException when {@code extra} cannot be written back without changing its
   *     meaning: a key equal to a typed metadata field ({@code model}, {@code provider}, {@code
   *     usage}, {@code input}), or a {@value #TOP_LEVEL_EXTRA} entry that is not a map or names a
   *     native top-level field
   */
  public ObjectNode write(Message m) {
    ObjectNode o = NODES.objectNode();
    o.put("id", m.id().value());
    o.put("role", m.role().wireName());
    o.put("content", m.content());
    if (!m.reasoning().isEmpty()) {
      ArrayNode a = o.putArray("reasoning");
      for (ReasoningBlock r : m.reasoning()) {
        ObjectNode b = a.addObject();
        b.put("type", r.type());
        b.put("text", r.text());
        if (r.signature() != null) {
          b.put("signature", r.signature());
        }
      }
    }
    if (!m.toolCalls().isEmpty()) {
      ArrayNode a = o.putArray("tool_calls");
      for (ToolCall c : m.toolCalls()) {
        a.addObject().put("id", c.id()).put("name", c.name()).put("arguments", c.arguments());
      }
    }
    if (m.toolCallId() != null) {
      o.put("tool_call_id", m.toolCallId());
    }
    if (m.timestamp() != null) {
      o.put("timestamp", m.timestamp().toString());
    }
    if (m.pinned()) {
      o.put("pinned", true);
    }
    if (m.hidden()) {
      o.put("hidden", true);
    }
    if (m.uiOnly()) {
      o.put("ui_only", true);
    }
    MessageMetadata md = m.metadata();
    ObjectNode meta = NODES.objectNode();
    if (md.model() != null) {
      meta.put("model", md.model());
    }
    if (md.provider() != null) {
      meta.put("provider", md.provider());
    }
    if (md.usage() != null) {
      Usage u = md.usage();
      ObjectNode un = meta.putObject("usage");
      putNonZero(un, "input", u.input());
      putNonZero(un, "output", u.output());
      putNonZero(un, "cache_read", u.cacheRead());
      putNonZero(un, "cache_write", u.cacheWrite());
      putNonZero(un, "reasoning", u.reasoning());
    }
    if (md.input() != null) {
      InputFingerprint f = md.input();
      meta.putObject("input")
          .put("messages", f.messageCount())
          .put("digest", f.digest())
          .put("model", f.model());
    }
    Object top = null;
    for (Map.Entry<String, Object> e : md.extra().entrySet()) {
      if (TOP_LEVEL_EXTRA.equals(e.getKey())) {
        top = e.getValue();
      } else if (METADATA_FIELDS.contains(e.getKey())) {
        throw new MessageFormatException(
            "message "
                + m.id()
                + ": metadata extra key \""
                + e.getKey()
                + "\" collides with the typed metadata field of that name");
      } else {
        meta.set(e.getKey(), jsonValue(e.getValue()));
      }
    }
    if (!meta.isEmpty()) {
      o.set("metadata", meta);
    }
    if (top != null) {
      if (!(top instanceof Map<?, ?> map)) {
        throw new MessageFormatException(
            "message "
                + m.id()
                + ": metadata extra \""
                + TOP_LEVEL_EXTRA
                + "\" must be a map of top-level fields, got "
                + top.getClass().getSimpleName());
      }
      for (Map.Entry<?, ?> e : map.entrySet()) {
        String name = String.valueOf(e.getKey());
        if (TOP_LEVEL_FIELDS.contains(name)) {
          throw new MessageFormatException(
              "message "
                  + m.id()
                  + ": metadata extra \""
                  + TOP_LEVEL_EXTRA
                  + "\" names the native field \""
                  + name
                  + "\"");
        }
        o.set(name, jsonValue(e.getValue()));
      }
    }
    return o;
  }

  // ---------------------------------------------------------------- plain values

  /**
   * Converts a JSON value to a plain Java value (String, Integer/Long/BigInteger, Double, Boolean,
   * null, List, Map), the representation of {@link MessageMetadata#extra()} values.
   */
  public Object plainValue(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return null;
    }
    // Scalars directly, as the mapper converts them (its first use in a process costs
    // milliseconds).
    if (node.isTextual()) {
      return node.textValue();
    } else if (node.isBoolean()) {
      return node.booleanValue();
    } else if (node.isInt() || node.isLong()) {
      return node.numberValue();
    }
    try {
      return mapper.treeToValue(node, Object.class);
    } catch (JsonProcessingException e) {
      throw new MessageFormatException("cannot convert JSON value " + describe(node), e);
    }
  }

  /**
   * Converts a plain Java value (see {@link #plainValue}) to JSON.
   *
   * @throws MessageFormatException when the value is not a plain JSON value Jackson can write
   */
  public JsonNode jsonValue(Object value) {
    // The plain values metadata and journals hold are made here directly: the mapper gives the
    // same nodes, but its first use in a process (finding a serializer) costs milliseconds.
    if (value == null) {
      return NODES.nullNode();
    } else if (value instanceof String s) {
      return NODES.textNode(s);
    } else if (value instanceof Long l) {
      return NODES.numberNode(l);
    } else if (value instanceof Integer i) {
      return NODES.numberNode(i);
    } else if (value instanceof Boolean b) {
      return NODES.booleanNode(b);
    } else if (value instanceof List<?> list) {
      ArrayNode a = NODES.arrayNode(list.size());
      list.forEach(v -> a.add(jsonValue(v)));
      return a;
    }
    try {
      return mapper.valueToTree(value);
    } catch (IllegalArgumentException e) {
      throw new MessageFormatException(
          "cannot write " + value.getClass().getName() + " as a JSON value", e);
    }
  }

  // ---------------------------------------------------------------- reading helpers

  private MessageMetadata readMetadata(JsonNode node, Map<String, Object> topLevel, String id) {
    Map<String, Object> extra = new LinkedHashMap<>();
    String model = null;
    String provider = null;
    Usage usage = null;
    InputFingerprint input = null;
    if (present(node, id, "metadata", JsonNode::isObject, "an object") != null) {
      model = optionalText(node, "model", id, "metadata.model");
      provider = optionalText(node, "provider", id, "metadata.provider");
      usage = readUsage(node.get("usage"), id);
      input = readInput(node.get("input"), id);
      for (Map.Entry<String, JsonNode> f : node.properties()) {
        if (METADATA_FIELDS.contains(f.getKey())) {
          continue;
        }
        if (TOP_LEVEL_EXTRA.equals(f.getKey())) {
          throw new MessageFormatException(
              "message " + id + ": metadata field \"" + TOP_LEVEL_EXTRA + "\" is reserved");
        }
        extra.put(f.getKey(), plainValue(f.getValue()));
      }
    }
    if (!topLevel.isEmpty()) {
      extra.put(TOP_LEVEL_EXTRA, topLevel);
    }
    return new MessageMetadata(model, provider, usage, input, extra);
  }

  private static Usage readUsage(JsonNode node, String id) {
    if (present(node, id, "metadata.usage", JsonNode::isObject, "an object") == null) {
      return null;
    }
    return new Usage(
        count(node, "input", id, "metadata.usage"),
        count(node, "output", id, "metadata.usage"),
        count(node, "cache_read", id, "metadata.usage"),
        count(node, "cache_write", id, "metadata.usage"),
        count(node, "reasoning", id, "metadata.usage"));
  }

  private static InputFingerprint readInput(JsonNode node, String id) {
    if (present(node, id, "metadata.input", JsonNode::isObject, "an object") == null) {
      return null;
    }
    long messages = count(node, "messages", id, "metadata.input");
    if (messages > Integer.MAX_VALUE) {
      throw new MessageFormatException(
          "message " + id + ": field metadata.input.messages is too large: " + messages);
    }
    String digest = optionalText(node, "digest", id, "metadata.input.digest");
    String model = optionalText(node, "model", id, "metadata.input.model");
    if (digest == null || model == null) {
      throw new MessageFormatException(
          "message " + id + ": field metadata.input needs digest and model, got " + node);
    }
    return new InputFingerprint((int) messages, digest, model);
  }

  /** Reads one element of an array field: {@code where} names it, e.g. {@code tool_calls[2]}. */
  @FunctionalInterface
  private interface ElementReader<T> {
    T read(JsonNode element, String id, String where);
  }

  /**
   * Reads the array field {@code field} of the message {@code message} (id {@code id}), each
   * element an object: empty when the field is absent or null.
   */
  private static <T> List<T> readObjects(
      JsonNode message, String field, String id, ElementReader<T> reader) {
    JsonNode node = present(message.get(field), id, field, JsonNode::isArray, "an array");
    if (node == null) {
      return List.of();
    }
    List<T> out = new ArrayList<>(node.size());
    for (int i = 0; i < node.size(); i++) {
      JsonNode e = node.get(i);
      String where = field + "[" + i + "]";
      if (!e.isObject()) {
        throw new MessageFormatException(
            "message " + id + ": field " + where + " must be an object, got " + describe(e));
      }
      out.add(reader.read(e, id, where));
    }
    return out;
  }

  private static ReasoningBlock readReasoningBlock(JsonNode b, String id, String where) {
    String type = optionalText(b, "type", id, where + ".type");
    if (type == null) {
      throw new MessageFormatException("message " + id + ": field " + where + ".type is missing");
    }
    return new ReasoningBlock(
        type,
        optionalText(b, "text", id, where + ".text"),
        optionalText(b, "signature", id, where + ".signature"));
  }

  private static ToolCall readToolCall(JsonNode c, String id, String where) {
    String callId = optionalText(c, "id", id, where + ".id");
    if (callId == null || callId.isBlank()) {
      throw new MessageFormatException(
          "message " + id + ": field " + where + ".id must be a non-blank string");
    }
    return new ToolCall(
        callId,
        optionalText(c, "name", id, where + ".name"),
        optionalText(c, "arguments", id, where + ".arguments"));
  }

  private static Instant readTimestamp(JsonNode node, String id) {
    if (present(node, id, "timestamp", JsonNode::isTextual, "an ISO-8601 string") == null) {
      return null;
    }
    String s = node.asText();
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException notInstant) {
      try {
        return OffsetDateTime.parse(s).toInstant();
      } catch (DateTimeParseException notOffset) {
        try {
          return LocalDateTime.parse(s).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
          throw new MessageFormatException(
              "message " + id + ": field timestamp \"" + s + "\" is not an ISO-8601 date-time", e);
        }
      }
    }
  }

  private static String requiredText(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || !v.isTextual() || v.asText().isBlank()) {
      throw new MessageFormatException(
          "field "
              + field
              + " must be a non-blank string, got "
              + (v == null ? "nothing" : describe(v))
              + (field.equals("id") ? "" : " (message " + idOf(node) + ")"));
    }
    return v.asText();
  }

  private static String idOf(JsonNode node) {
    JsonNode id = node.get("id");
    return id == null ? "without id" : id.asText();
  }

  private static String optionalText(JsonNode node, String field, String id) {
    return optionalText(node, field, id, field);
  }

  private static String optionalText(JsonNode node, String field, String id, String path) {
    JsonNode v = present(node.get(field), id, path, JsonNode::isTextual, "a string");
    return v == null ? null : v.asText();
  }

  private static boolean flag(JsonNode node, String field, String id) {
    JsonNode v = present(node.get(field), id, field, JsonNode::isBoolean, "true or false");
    return v != null && v.booleanValue();
  }

  private static long count(JsonNode node, String field, String id, String parent) {
    JsonNode v =
        present(
            node.get(field),
            id,
            parent + "." + field,
            n -> n.isIntegralNumber() && n.canConvertToLong() && n.longValue() >= 0,
            "a whole number >= 0");
    return v == null ? 0 : v.longValue();
  }

  /**
   * The value {@code v} of the field {@code path} of the message {@code id}, or null when the field
   * is absent or JSON null.
   *
   * @param what what the value must be, for the error, e.g. {@code "a string"}
   * @throws MessageFormatException naming the field and the value when {@code valid} refuses it
   */
  private static JsonNode present(
      JsonNode v, String id, String path, Predicate<JsonNode> valid, String what) {
    if (v == null || v.isNull()) {
      return null;
    }
    if (!valid.test(v)) {
      throw new MessageFormatException(
          "message " + id + ": field " + path + " must be " + what + ", got " + describe(v));
    }
    return v;
  }

  private static void putNonZero(ObjectNode o, String field, long v) {
    if (v != 0) {
      o.put(field, v);
    }
  }

  /** The value as JSON text, cut to a readable length for error messages. */
  private static String describe(JsonNode v) {
    String s = v.toString();
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  private static boolean hasUnpairedSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return true;
        }
      } else if (Character.isLowSurrogate(c)) {
        return true;
      }
    }
    return false;
  }
}
