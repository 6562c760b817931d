package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Maps an OpenAI chat message array ({@code role}, {@code content} as a string, null or a list of
 * parts, {@code tool_calls}, {@code tool_call_id}, {@code name}) onto messages. Shared by the
 * OpenAI, tau-bench, mini-swe-agent and SWE-agent importers.
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
 * </ul>
 */
final class OpenAiMessages {
  private OpenAiMessages() {}

  /**
   * The messages of {@code array}; how the mapping went goes to {@code notes}, what was broken in
   * the source (entries skipped, unreadable timestamps) to {@code problems}.
   */
  static List<Message> map(
      JsonNode array, String where, List<String> notes, List<String> problems) {
    List<Message> out = new ArrayList<>(array.size());
    List<String> skipped = new ArrayList<>();
    List<String> badTimestamps = new ArrayList<>();
    int derivedIds = 0;
    int unknownRoles = 0;
    String legacyCallId = null;
    for (int i = 0; i < array.size(); i++) {
      JsonNode node = array.get(i);
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
        b.content(AnthropicContent.join(texts));
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
    Assembly.addCapped(problems, skipped, "entries of " + where + " skipped");
    Assembly.addCapped(
        problems, badTimestamps, "unreadable timestamps left empty (kept in metadata.extra)");
    if (derivedIds > 0) {
      notes.add(derivedIds + " tool call(s) without an id got a derived id call-<message>-<n>");
    }
    if (unknownRoles > 0) {
      notes.add(
          unknownRoles
              + " message(s) with a role that is not a chat role were imported as uiOnly system"
              + " messages (metadata.extra.source_role)");
    }
    return out;
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

  private static String arguments(JsonNode args) {
    if (args == null || args.isNull()) {
      return "";
    }
    return args.isTextual() ? args.textValue() : Json.write(args);
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
