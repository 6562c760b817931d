package dev.compactor.models.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.models.internal.ErrorClassifier;
import dev.compactor.models.internal.ErrorMapper;
import dev.compactor.models.internal.Json;
import dev.compactor.models.internal.MessageAssembler;
import dev.compactor.models.internal.Requests;
import dev.compactor.models.internal.Usages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The Responses API wire format: input items, request bodies, response parsing. */
final class ResponsesWire {
  private ResponsesWire() {}

  static final String PROVIDER = "openai";

  /** The leading system messages (joined) and the input items for the rest. */
  record Input(String instructions, ArrayNode items) {}

  static Input input(List<Message> messages) {
    List<Message> sendable = Requests.sendable(messages);
    StringBuilder instructions = new StringBuilder();
    int i = 0;
    while (i < sendable.size() && sendable.get(i).role() == Role.SYSTEM) {
      if (!sendable.get(i).content().isEmpty()) {
        if (instructions.length() > 0) {
          instructions.append("\n\n");
        }
        instructions.append(sendable.get(i).content());
      }
      i++;
    }
    ArrayNode items = Json.NODES.arrayNode();
    for (; i < sendable.size(); i++) {
      Message m = sendable.get(i);
      switch (m.role()) {
        case SYSTEM, USER ->
            items.addObject().put("role", m.role().wireName()).put("content", m.content());
        case TOOL -> {
          if (m.toolCallId() == null) {
            throw new IllegalArgumentException(
                "message " + m.id() + ": a tool result needs the toolCallId of its call");
          }
          items
              .addObject()
              .put("type", "function_call_output")
              .put("call_id", m.toolCallId())
              .put("output", m.content());
        }
        case ASSISTANT -> {
          for (CompactionItem c : ProviderCompaction.itemsOf(m)) {
            if (PROVIDER.equals(c.provider())) {
              items.add(Json.tree(c.raw()));
            }
          }
          if (!m.content().isEmpty()) {
            items.addObject().put("role", "assistant").put("content", m.content());
          }
          for (ToolCall c : m.toolCalls()) {
            items
                .addObject()
                .put("type", "function_call")
                .put("call_id", c.id())
                .put("name", c.name())
                .put("arguments", c.arguments());
          }
        }
      }
    }
    return new Input(instructions.length() == 0 ? null : instructions.toString(), items);
  }

  static ObjectNode request(ChatRequest req, String model, boolean stream) {
    ObjectNode body = Json.object();
    body.put("model", model);
    Input in = input(req.messages());
    if (in.instructions() != null) {
      body.put("instructions", in.instructions());
    }
    body.set("input", in.items());
    if (!req.tools().isEmpty()) {
      ArrayNode tools = body.putArray("tools");
      for (ToolSpec t : req.tools()) {
        ObjectNode o = tools.addObject().put("type", "function").put("name", t.name());
        if (!t.description().isEmpty()) {
          o.put("description", t.description());
        }
        o.set("parameters", Requests.schema(t));
      }
    }
    if (req.maxOutputTokens() != null) {
      body.put("max_output_tokens", req.maxOutputTokens());
    }
    if (req.temperature() != null) {
      body.put("temperature", req.temperature());
    }
    if (req.compactThreshold() != null) {
      body.putArray("context_management")
          .addObject()
          .put("type", "compaction")
          .put("compact_threshold", req.compactThreshold());
    }
    if (stream) {
      body.put("stream", true);
    }
    Requests.applyOptions(body, req.options());
    return body;
  }

  static ObjectNode compactRequest(ChatRequest req, String model) {
    ObjectNode body = Json.object();
    body.put("model", model);
    Input in = input(req.messages());
    body.set("input", in.items());
    if (in.instructions() != null) {
      body.put("instructions", in.instructions());
    }
    Requests.applyOptions(body, req.options());
    return body;
  }

  /** The parts of a response's output. */
  static final class Output {
    final MessageAssembler assembler = new MessageAssembler();
    final List<CompactionItem> compaction = new ArrayList<>();
    boolean refusal;
  }

  static Output output(JsonNode output, ErrorMapper mapper, JsonNode root) {
    Output out = new Output();
    if (output == null || !output.isArray()) {
      return out;
    }
    int calls = 0;
    int reasoning = 0;
    for (JsonNode item : output) {
      String type = Json.text(item, "type");
      if (type == null) {
        continue;
      }
      switch (type) {
        case "message" -> {
          for (JsonNode part : item.path("content")) {
            String pt = Json.text(part, "type");
            if ("output_text".equals(pt) || "text".equals(pt)) {
              out.assembler.appendText(Json.text(part, "text"));
            } else if ("refusal".equals(pt)) {
              out.refusal = true;
              out.assembler.appendText(Json.text(part, "refusal"));
            }
          }
        }
        case "function_call" -> {
          MessageAssembler.CallPart p = out.assembler.call(calls++);
          p.id(Json.text(item, "call_id"));
          p.name(Json.text(item, "name"));
          p.arguments(ChatCompletionsWire.arguments(item.get("arguments")));
          if (p.id() == null) {
            throw ErrorClassifier.malformed(
                mapper,
                200,
                "response (function_call without call_id)",
                Json.write(root),
                null,
                null);
          }
        }
        case "reasoning" -> {
          MessageAssembler.ReasoningPart p = out.assembler.reasoning(reasoning++, "reasoning");
          p.append(reasoningText(item));
          String enc = Json.text(item, "encrypted_content");
          if (enc != null) {
            p.signature(enc);
          }
        }
        case "compaction" -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> raw = (Map<String, Object>) Json.plain(item);
          out.compaction.add(new CompactionItem(PROVIDER, raw));
        }
        default -> {
          // built-in tool calls and other items have no place in a Message
        }
      }
    }
    return out;
  }

  private static String reasoningText(JsonNode item) {
    StringBuilder sb = new StringBuilder();
    for (String field : new String[] {"summary", "content"}) {
      for (JsonNode part : item.path(field)) {
        String t = Json.text(part, "text");
        if (t != null && !t.isEmpty()) {
          if (sb.length() > 0) {
            sb.append("\n\n");
          }
          sb.append(t);
        }
      }
    }
    return sb.toString();
  }

  /**
   * The chat response of a complete response object.
   *
   * @throws dev.compactor.core.model.ModelException when the response failed ({@code status:
   *     failed} or an {@code error} object)
   */
  static ChatResponse response(
      JsonNode resp, OpenAiResponsesModel client, ChatRequest req, String model) {
    ErrorMapper mapper = client.errorMapper();
    JsonNode error = resp.get("error");
    if ((error != null && error.isObject()) || "failed".equals(Json.text(resp, "status"))) {
      throw mapper.fromStreamEvent(
          Json.write(error != null && error.isObject() ? error : resp), model, null);
    }
    if (!resp.has("output")) {
      throw ErrorClassifier.malformed(
          mapper, 200, "response (no output)", Json.write(resp), null, null);
    }
    Output out = output(resp.get("output"), mapper, resp);
    return build(resp, out, client, req, model);
  }

  static ChatResponse build(
      JsonNode resp, Output out, OpenAiResponsesModel client, ChatRequest req, String model) {
    Usage usage = Usages.responses(resp.get("usage"));
    String reported = Json.text(resp, "model");
    String status = Json.text(resp, "status");
    String incomplete = Json.text(resp.path("incomplete_details"), "reason");
    Message base = out.assembler.build();
    FinishReason finish;
    String raw;
    if ("incomplete".equals(status)) {
      raw = incomplete != null ? incomplete : status;
      finish =
          switch (raw) {
            case "max_output_tokens" -> FinishReason.LENGTH;
            case "content_filter" -> FinishReason.CONTENT_FILTER;
            default -> FinishReason.OTHER;
          };
    } else {
      raw = status;
      if (out.refusal) {
        finish = FinishReason.CONTENT_FILTER;
      } else if (base.hasToolCalls()) {
        finish = FinishReason.TOOL_CALLS;
      } else {
        finish = "completed".equals(status) ? FinishReason.STOP : FinishReason.OTHER;
      }
    }
    Message message =
        Requests.finish(base, client.provider(), model, reported, usage, out.compaction, req);
    return new ChatResponse(
        message,
        usage,
        finish,
        raw,
        new ProviderCompaction(out.compaction, List.of(), null),
        Json.text(resp, "id"),
        reported);
  }

  /** The messages of a compacted output: user and other messages, compaction item carriers. */
  static List<Message> messages(JsonNode output, String provider, String model) {
    List<Message> out = new ArrayList<>();
    if (output == null || !output.isArray()) {
      return out;
    }
    for (JsonNode item : output) {
      String type = Json.text(item, "type");
      if (type == null && item.has("role")) {
        type = "message";
      }
      if (type == null) {
        continue;
      }
      switch (type) {
        case "message" -> {
          Role role;
          String r = Json.text(item, "role");
          role = "developer".equals(r) ? Role.SYSTEM : Role.parse(r);
          JsonNode content = item.get("content");
          out.add(
              Message.builder(role)
                  .content(ChatCompletionsWire.contentText(content))
                  .metadata(
                      new dev.compactor.core.message.MessageMetadata(
                          role == Role.ASSISTANT ? model : null,
                          role == Role.ASSISTANT ? provider : null,
                          null,
                          null,
                          Map.of()))
                  .build());
        }
        case "function_call" ->
            out.add(
                Message.assistant(
                    "",
                    List.of(
                        new ToolCall(
                            Json.text(item, "call_id"),
                            Json.text(item, "name"),
                            ChatCompletionsWire.arguments(item.get("arguments"))))));
        case "function_call_output" ->
            out.add(
                Message.toolResult(
                    Json.text(item, "call_id"),
                    ChatCompletionsWire.contentText(item.get("output"))));
        case "compaction" -> {
          @SuppressWarnings("unchecked")
          Map<String, Object> raw = (Map<String, Object>) Json.plain(item);
          CompactionItem c = new CompactionItem(PROVIDER, raw);
          out.add(
              Message.builder(Role.ASSISTANT)
                  .metadata(
                      ProviderCompaction.withItems(
                          new dev.compactor.core.message.MessageMetadata(
                              model, provider, null, null, Map.of()),
                          List.of(c)))
                  .build());
        }
        default -> {
          // reasoning and built-in tool items are not carried
        }
      }
    }
    return out;
  }
}
