package dev.compactor.models.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.models.ResponsesCompaction;
import dev.compactor.models.internal.ErrorClassifier;
import dev.compactor.models.internal.ErrorMapper;
import dev.compactor.models.internal.MessageAssembler;
import dev.compactor.models.internal.Requests;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import dev.compactor.wire.openai.ResponsesItems;
import dev.compactor.wire.tools.ToolDefinitions;
import dev.compactor.wire.usage.Usages;
import java.util.ArrayList;
import java.util.List;

/** The Responses API wire format: input items, request bodies, response parsing. */
final class ResponsesWire {
  private ResponsesWire() {}

  static final String PROVIDER = ResponsesItems.PROVIDER;

  static ResponsesItems.Input input(List<Message> messages) {
    return ResponsesItems.encode(Requests.sendable(messages));
  }

  static ObjectNode request(ChatRequest req, String model, boolean stream) {
    ObjectNode body = Json.object();
    body.put("model", model);
    ResponsesItems.Input in = input(req.messages());
    if (in.instructions() != null) {
      body.put("instructions", in.instructions());
    }
    body.set("input", in.items());
    if (!req.tools().isEmpty()) {
      ArrayNode tools = body.putArray("tools");
      for (ToolSpec t : req.tools()) {
        ToolDefinitions.add(tools, t, ToolDefinitions.Dialect.RESPONSES);
      }
    }
    if (req.maxOutputTokens() != null) {
      body.put("max_output_tokens", req.maxOutputTokens());
    }
    if (req.temperature() != null) {
      body.put("temperature", req.temperature());
    }
    req.extension(ResponsesCompaction.class)
        .ifPresent(
            c ->
                body.putArray("context_management")
                    .addObject()
                    .put("type", "compaction")
                    .put("compact_threshold", c.compactThreshold()));
    if (stream) {
      body.put("stream", true);
    }
    Requests.applyOptions(body, req.options());
    return body;
  }

  static ObjectNode compactRequest(ChatRequest req, String model) {
    ObjectNode body = Json.object();
    body.put("model", model);
    ResponsesItems.Input in = input(req.messages());
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
      String type = Json.scalar(item, "type");
      if (type == null) {
        continue;
      }
      switch (type) {
        case "message" -> {
          for (JsonNode part : item.path("content")) {
            String pt = Json.scalar(part, "type");
            if ("output_text".equals(pt) || "text".equals(pt)) {
              out.assembler.appendText(Json.scalar(part, "text"));
            } else if ("refusal".equals(pt)) {
              out.refusal = true;
              out.assembler.appendText(Json.scalar(part, "refusal"));
            }
          }
        }
        case "function_call" -> {
          MessageAssembler.CallPart p = out.assembler.call(calls++);
          p.id(Json.scalar(item, "call_id"));
          p.name(Json.scalar(item, "name"));
          p.arguments(ChatCompletionsMessages.arguments(item.get("arguments")));
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
          String enc = Json.scalar(item, "encrypted_content");
          if (enc != null) {
            p.signature(enc);
          }
        }
        case "compaction" -> {
          out.compaction.add(ResponsesItems.compactionItem(item));
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
        String t = Json.scalar(part, "text");
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
    if ((error != null && error.isObject()) || "failed".equals(Json.scalar(resp, "status"))) {
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
    String reported = Json.scalar(resp, "model");
    String status = Json.scalar(resp, "status");
    String incomplete = Json.scalar(resp.path("incomplete_details"), "reason");
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
        Json.scalar(resp, "id"),
        reported);
  }

  /** The messages of a compacted output: user and other messages, compaction item carriers. */
  static List<Message> messages(JsonNode output, String provider, String model) {
    return ResponsesItems.decode(output, provider, model);
  }
}
