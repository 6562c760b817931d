package dev.compactor.wire.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.wire.Unchanged;
import dev.compactor.wire.internal.TextParts;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.json.MessageFormatException;
import dev.compactor.wire.usage.Usages;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * OpenAI Chat Completions messages, both directions.
 *
 * <p><b>Reading</b> ({@link #decode}) maps a chat message array ({@code role}, {@code content} as a
 * string, null or a list of parts, {@code tool_calls}, {@code tool_call_id}, {@code name}) onto
 * messages. Shared by the OpenAI, tau-bench, mini-swe-agent and SWE-agent importers.
 *
 * <ul>
 *   <li>{@code developer} becomes {@code system}; a role that is none of system, developer, user,
 *       assistant, tool, function (e.g. mini-swe-agent's {@code exit}) becomes a {@code uiOnly}
 *       system message. The source role is kept in {@code metadata.extra.source_role}.
 *   <li>Text parts are joined; a content list with any other part is also kept whole in {@code
 *       metadata.extra.content}.
 *   <li>{@code tool_call_ids} (SWE-agent) is read like {@code tool_call_id}; the legacy {@code
 *       function_call} / {@code role: function} pair gets a derived call id.
 *   <li>{@code reasoning_content}, {@code reasoning} and {@code thinking_blocks} of assistant
 *       messages become reasoning blocks.
 *   <li>Timestamps from {@code timestamp} or mini-swe-agent's {@code extra.timestamp}; usage and
 *       model from the message or from {@code extra.response} (the raw provider response).
 *   <li>Every other field is kept in {@code metadata.extra} under its own name.
 *   <li>Messages get the ids {@code msg-<index>}.
 * </ul>
 *
 * <p><b>Writing</b> ({@link #encode}) gives the message a provider accepts: {@code role}, {@code
 * content} (null for an assistant message with only tool calls), {@code tool_calls} with {@code
 * type: function}, {@code tool_call_id}. Reasoning blocks and {@code metadata.extra} are not sent.
 * {@link #reencode} sends the source object of a decoded message unchanged when the message still
 * says what its source said, so a forwarded request keeps its bytes where nothing changed.
 *
 * <p>Stateless and thread-safe.
 */
public final class ChatCompletionsMessages {
  private ChatCompletionsMessages() {}

  /**
   * What {@link #decode} read: the messages, and what it could not read or had to make up.
   *
   * @param messages one per readable entry, in order
   * @param skipped entries that are not messages ({@code where[i] is not an object}, {@code has no
   *     role})
   * @param badTimestamps entries whose timestamp could not be read (left empty, the value kept in
   *     {@code metadata.extra})
   * @param derivedIds tool calls without an id that got {@code call-<message>-<n>}
   * @param unknownRoles messages with a role that is not a chat role (imported as {@code uiOnly}
   *     system messages)
   */
  public record Decoded(
      List<Message> messages,
      List<String> skipped,
      List<String> badTimestamps,
      int derivedIds,
      int unknownRoles) {
    public Decoded {
      messages = List.copyOf(messages);
      skipped = List.copyOf(skipped);
      badTimestamps = List.copyOf(badTimestamps);
    }
  }

  /**
   * Reads a chat message array.
   *
   * @param array the {@code messages} array
   * @param where how the array is named in notes, e.g. {@code messages}
   */
  public static Decoded decode(JsonNode array, String where) {
    return decode(array, where, 0);
  }

  /**
   * Reads the rest of a chat message array, from its element {@code first} on, as {@link
   * #decode(JsonNode, String)} reads them within the whole array: the same ids and notes. Each
   * message is read from its element and its position alone, but for a legacy {@code function}
   * result, which takes its id from the {@code function_call} before it: a caller that reads a
   * conversation in parts must read one with a {@code function_call} before {@code first} whole.
   *
   * @param rest the elements from {@code first} on
   * @param first the position of {@code rest}'s first element in the whole array
   */
  public static Decoded decode(JsonNode rest, String where, int first) {
    if (first < 0) {
      throw new IllegalArgumentException("first must be 0 or more, got " + first);
    }
    JsonNode array = rest;
    List<Message> out = new ArrayList<>(array.size());
    List<String> skipped = new ArrayList<>();
    List<String> badTimestamps = new ArrayList<>();
    int derivedIds = 0;
    int unknownRoles = 0;
    String legacyCallId = null;
    for (int j = 0; j < array.size(); j++) {
      int i = first + j;
      JsonNode node = array.get(j);
      String at = where + "[" + i + "]";
      if (!node.isObject()) {
        skipped.add(at + " is not an object");
        continue;
      }
      String roleText = Json.text(node, "role");
      if (roleText == null) {
        skipped.add(at + " has no role");
        continue;
      }
      Set<String> consumed = new HashSet<>(Set.of("role"));
      Role role;
      String sourceRole = null;
      boolean legacyFunction = false;
      boolean uiOnly = false;
      switch (roleText.toLowerCase(Locale.ROOT)) {
        case "system" -> role = Role.SYSTEM;
        case "developer" -> {
          role = Role.SYSTEM;
          sourceRole = roleText;
        }
        case "user" -> role = Role.USER;
        case "assistant" -> role = Role.ASSISTANT;
        case "tool" -> role = Role.TOOL;
        case "function" -> {
          role = Role.TOOL;
          legacyFunction = true;
          sourceRole = roleText;
        }
        default -> {
          role = Role.SYSTEM;
          uiOnly = true;
          sourceRole = roleText;
          unknownRoles++;
        }
      }
      Message.Builder b = Message.builder(role).uiOnly(uiOnly).id("msg-" + i);

      // Content.
      JsonNode c = node.get("content");
      if (c == null || c.isNull()) {
        consumed.add("content");
      } else if (c.isTextual()) {
        b.content(c.textValue());
        consumed.add("content");
      } else if (c.isArray()) {
        List<String> texts = new ArrayList<>();
        boolean other = false;
        for (JsonNode p : c) {
          String t = p.isTextual() ? p.textValue() : partText(p);
          if (t != null) {
            texts.add(t);
          } else {
            other = true;
          }
        }
        b.content(TextParts.join(texts));
        if (!other) {
          consumed.add("content");
        }
      }

      // Tool calls.
      if (role == Role.ASSISTANT) {
        List<ToolCall> calls = new ArrayList<>();
        JsonNode tcs = node.get("tool_calls");
        boolean allFunctions = true;
        if (tcs != null && tcs.isArray()) {
          for (int k = 0; k < tcs.size(); k++) {
            JsonNode tc = tcs.get(k);
            JsonNode fn = tc.path("function");
            String id = Json.text(tc, "id");
            if (id == null || id.isBlank()) {
              id = "call-" + i + "-" + k;
              derivedIds++;
            }
            String type = Json.text(tc, "type");
            if (type != null && !type.equals("function")) {
              allFunctions = false;
            }
            calls.add(new ToolCall(id, Json.text(fn, "name"), arguments(fn.get("arguments"))));
          }
          if (allFunctions) {
            consumed.add("tool_calls");
          }
        } else if (tcs != null && tcs.isNull()) {
          consumed.add("tool_calls");
        }
        JsonNode fc = node.get("function_call");
        if (calls.isEmpty() && fc != null && fc.isObject()) {
          legacyCallId = "function-call-" + i;
          calls.add(
              new ToolCall(legacyCallId, Json.text(fc, "name"), arguments(fc.get("arguments"))));
          consumed.add("function_call");
        } else if (fc != null && fc.isNull()) {
          consumed.add("function_call");
        }
        b.toolCalls(calls);
        b.reasoning(reasoning(node, consumed));
      }

      // Tool result id.
      if (role == Role.TOOL) {
        String cid = Json.text(node, "tool_call_id");
        if (cid != null) {
          consumed.add("tool_call_id");
        } else {
          JsonNode ids = node.get("tool_call_ids");
          if (ids != null && ids.isArray() && ids.size() >= 1 && ids.get(0).isTextual()) {
            cid = ids.get(0).textValue();
            if (ids.size() == 1) {
              consumed.add("tool_call_ids");
            }
          }
        }
        if (cid == null && legacyFunction) {
          cid = legacyCallId;
        }
        b.toolCallId(cid);
      }

      // Timestamp.
      JsonNode ts = node.get("timestamp");
      boolean nested = false;
      if (ts == null || ts.isNull()) {
        ts = node.path("extra").get("timestamp");
        nested = true;
      }
      try {
        Instant t = Json.timestamp(ts);
        b.timestamp(t);
        if (t != null && !nested) {
          consumed.add("timestamp");
        }
      } catch (DateTimeParseException e) {
        badTimestamps.add(at + " " + ts);
      }

      // Usage and model.
      String model = null;
      Usage usage = null;
      if (role == Role.ASSISTANT) {
        model = Json.text(node, "model");
        if (model != null) {
          consumed.add("model");
        } else {
          model = Json.text(node.path("extra").path("response"), "model");
        }
        usage = Usages.parse(node.get("usage"));
        if (usage != null) {
          consumed.add("usage");
        } else {
          usage = Usages.parse(node.path("extra").path("response").get("usage"));
        }
      }
      Map<String, Object> extra = Json.rest(node, consumed);
      if (sourceRole != null) {
        extra.put("source_role", sourceRole);
      }
      b.metadata(new MessageMetadata(model, null, usage, null, extra));
      out.add(b.build());
    }
    return new Decoded(out, skipped, badTimestamps, derivedIds, unknownRoles);
  }

  /** The text of a content part, or null when the part is not text. */
  private static String partText(JsonNode p) {
    String type = Json.text(p, "type");
    if (type == null
        || type.equals("text")
        || type.equals("input_text")
        || type.equals("output_text")) {
      return Json.text(p, "text");
    }
    if (type.equals("refusal")) {
      return Json.text(p, "refusal");
    }
    return null;
  }

  /** Tool call arguments as text: a string as it is, any other JSON value written compactly. */
  public static String arguments(JsonNode args) {
    if (args == null || args.isNull()) {
      return "";
    }
    return args.isTextual() ? args.textValue() : Json.write(args);
  }

  // ---------------------------------------------------------------- strict reading

  private static final Set<String> STRICT_FIELDS =
      Set.of("id", "role", "content", "tool_calls", "tool_call_id");

  /**
   * Reads one message of an API that accepts the Chat Completions message shape and nothing else:
   * {@code role} (system, user, assistant, tool), {@code content} (a string or null), optional
   * {@code id}, {@code tool_calls} (assistant; each {@code {"id", "type": "function", "function":
   * {"name", "arguments"}}} or flat {@code {"id", "name", "arguments"}}; arguments a JSON string or
   * object, {@code {}} when absent) and {@code tool_call_id} (required on tool messages). Unknown
   * fields are refused.
   *
   * @param where the message's place, for errors ({@code messages[3]})
   * @throws MessageFormatException naming the field and value
   */
  public static Message decodeStrict(JsonNode m, String where) {
    if (m == null || !m.isObject()) {
      throw invalid(where + " must be an object, got " + m);
    }
    for (Iterator<String> it = m.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!STRICT_FIELDS.contains(f)) {
        throw invalid(
            where
                + ": unknown field \""
                + f
                + "\" (known: "
                + String.join(", ", STRICT_FIELDS.stream().sorted().toList())
                + ")");
      }
    }
    JsonNode roleNode = m.get("role");
    if (roleNode == null || !roleNode.isTextual()) {
      throw invalid(where + ".role is required: system, user, assistant or tool");
    }
    Role role;
    try {
      role = Role.parse(roleNode.textValue());
    } catch (IllegalArgumentException e) {
      throw invalid(where + ".role: " + e.getMessage());
    }
    Message.Builder b = Message.builder(role);
    JsonNode id = m.get("id");
    if (id != null && !id.isNull()) {
      if (!id.isTextual() || id.textValue().isBlank()) {
        throw invalid(where + ".id must be a non-blank string, got " + id);
      }
      b.id(id.textValue());
    }
    JsonNode content = m.get("content");
    if (content != null && !content.isNull()) {
      if (!content.isTextual()) {
        throw invalid(where + ".content must be a string or null, got " + content.getNodeType());
      }
      b.content(content.textValue());
    }
    JsonNode calls = m.get("tool_calls");
    if (calls != null && !calls.isNull()) {
      if (role != Role.ASSISTANT) {
        throw invalid(where + ".tool_calls: only assistant messages carry tool calls");
      }
      if (!calls.isArray()) {
        throw invalid(where + ".tool_calls must be an array");
      }
      List<ToolCall> out = new ArrayList<>();
      int i = 0;
      for (JsonNode c : calls) {
        out.add(strictToolCall(c, where + ".tool_calls[" + i++ + "]"));
      }
      b.toolCalls(out);
    }
    JsonNode callId = m.get("tool_call_id");
    if (callId != null && !callId.isNull()) {
      if (role != Role.TOOL) {
        throw invalid(where + ".tool_call_id: only tool messages answer a tool call");
      }
      if (!callId.isTextual() || callId.textValue().isBlank()) {
        throw invalid(where + ".tool_call_id must be a non-blank string, got " + callId);
      }
      b.toolCallId(callId.textValue());
    } else if (role == Role.TOOL) {
      throw invalid(where + ".tool_call_id is required on a tool message");
    }
    return b.build();
  }

  private static ToolCall strictToolCall(JsonNode c, String where) {
    if (!c.isObject()) {
      throw invalid(where + " must be an object");
    }
    JsonNode id = c.get("id");
    if (id == null || !id.isTextual() || id.textValue().isBlank()) {
      throw invalid(where + ".id is required");
    }
    JsonNode fn = c.has("function") ? c.get("function") : c;
    if (!fn.isObject()) {
      throw invalid(where + ".function must be an object");
    }
    JsonNode name = fn.get("name");
    if (name == null || !name.isTextual() || name.textValue().isBlank()) {
      throw invalid(where + ": the tool name is required");
    }
    JsonNode args = fn.get("arguments");
    String arguments;
    if (args == null || args.isNull()) {
      arguments = "{}";
    } else if (args.isTextual()) {
      arguments = args.textValue();
    } else if (args.isObject()) {
      arguments = args.toString();
    } else {
      throw invalid(where + ": arguments must be a JSON string or object");
    }
    return new ToolCall(id.textValue(), name.textValue(), arguments);
  }

  private static MessageFormatException invalid(String message) {
    return new MessageFormatException(message);
  }

  // ---------------------------------------------------------------- writing

  /**
   * The Chat Completions message of {@code m}; null for an assistant message that only carries
   * provider compaction items (Chat Completions has no place for them).
   *
   * @throws IllegalArgumentException when a tool result has no {@code toolCallId}
   */
  public static ObjectNode encode(Message m) {
    ObjectNode o = Json.object();
    switch (m.role()) {
      case SYSTEM, USER -> o.put("role", m.role().wireName()).put("content", m.content());
      case TOOL -> {
        if (m.toolCallId() == null) {
          throw new IllegalArgumentException(
              "message " + m.id() + ": a tool result needs the toolCallId of its call");
        }
        o.put("role", "tool").put("tool_call_id", m.toolCallId()).put("content", m.content());
      }
      case ASSISTANT -> {
        if (m.content().isEmpty()
            && !m.hasToolCalls()
            && !ProviderCompaction.itemsOf(m).isEmpty()) {
          return null;
        }
        o.put("role", "assistant");
        if (m.content().isEmpty() && m.hasToolCalls()) {
          o.putNull("content");
        } else {
          o.put("content", m.content());
        }
        if (m.hasToolCalls()) {
          ArrayNode calls = o.putArray("tool_calls");
          for (ToolCall c : m.toolCalls()) {
            ObjectNode call = calls.addObject().put("id", c.id()).put("type", "function");
            call.putObject("function").put("name", c.name()).put("arguments", c.arguments());
          }
        }
      }
    }
    return o;
  }

  /**
   * The message to send for {@code m}, which was decoded from {@code source} (or null when it was
   * not): {@code source} itself, unchanged, when decoding {@code source} alone gives a message that
   * says the same ({@link Unchanged#onTheWire}); otherwise {@link #encode}. Fields this class does
   * not model (names, annotations, audio, cache hints of OpenAI-compatible servers) survive as long
   * as the message is not changed.
   */
  public static ObjectNode reencode(Message m, JsonNode source) {
    if (source != null && source.isObject()) {
      Decoded again = decode(Json.array().add(source), "source");
      if (again.messages().size() == 1 && Unchanged.onTheWire(m, again.messages().get(0))) {
        return (ObjectNode) source.deepCopy();
      }
    }
    return encode(m);
  }

  // ---------------------------------------------------------------- responses

  /**
   * Text of a response message's (or stream delta's) {@code content}: a string, or the {@code text}
   * of every part of an array, concatenated.
   */
  public static String responseText(JsonNode content) {
    if (content == null || content.isNull()) {
      return "";
    }
    if (content.isTextual()) {
      return content.asText();
    }
    if (content.isArray()) {
      StringBuilder sb = new StringBuilder();
      for (JsonNode part : content) {
        String t = Json.scalar(part, "text");
        if (t != null) {
          sb.append(t);
        }
      }
      return sb.toString();
    }
    return "";
  }

  /** Reasoning of OpenAI-compatible servers: {@code reasoning_content} or {@code reasoning}. */
  public static String reasoningText(JsonNode msgOrDelta) {
    for (String f : new String[] {"reasoning_content", "reasoning"}) {
      JsonNode v = msgOrDelta.get(f);
      if (v != null && v.isTextual() && !v.asText().isEmpty()) {
        return v.asText();
      }
    }
    return null;
  }

  /** The field {@link #reasoningText} read, as the reasoning block type. */
  public static String reasoningType(JsonNode msgOrDelta) {
    JsonNode v = msgOrDelta.get("reasoning_content");
    return v != null && v.isTextual() && !v.asText().isEmpty() ? "reasoning_content" : "reasoning";
  }

  private static List<ReasoningBlock> reasoning(JsonNode node, Set<String> consumed) {
    List<ReasoningBlock> out = new ArrayList<>();
    for (String field : List.of("reasoning_content", "reasoning")) {
      String r = Json.text(node, field);
      if (r != null) {
        consumed.add(field);
        if (!r.isEmpty()) {
          out.add(new ReasoningBlock(field, r, null));
        }
      }
    }
    JsonNode blocks = node.get("thinking_blocks");
    if (blocks != null && blocks.isArray()) {
      boolean all = true;
      for (JsonNode tb : blocks) {
        String type = Json.text(tb, "type");
        if ("thinking".equals(type)) {
          out.add(
              new ReasoningBlock(
                  "thinking", Json.text(tb, "thinking"), Json.text(tb, "signature")));
        } else if ("redacted_thinking".equals(type)) {
          out.add(new ReasoningBlock("redacted_thinking", Json.text(tb, "data"), null));
        } else {
          all = false;
        }
      }
      if (all) {
        consumed.add("thinking_blocks");
      }
    }
    return out;
  }
}
