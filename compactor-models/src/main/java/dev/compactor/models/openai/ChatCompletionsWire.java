package dev.compactor.models.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.models.internal.ErrorClassifier;
import dev.compactor.models.internal.ErrorMapper;
import dev.compactor.models.internal.Json;
import dev.compactor.models.internal.MessageAssembler;
import dev.compactor.models.internal.Requests;
import dev.compactor.models.internal.Usages;
import java.util.List;

/** The Chat Completions wire format: request bodies and response parsing. */
final class ChatCompletionsWire {
  private ChatCompletionsWire() {}

  static ObjectNode request(ChatRequest req, String model, boolean stream, String maxTokensField) {
    ObjectNode body = Json.object();
    body.put("model", model);
    ArrayNode messages = body.putArray("messages");
    for (Message m : Requests.sendable(req.messages())) {
      ObjectNode o = message(m);
      if (o != null) {
        messages.add(o);
      }
    }
    if (!req.tools().isEmpty()) {
      ArrayNode tools = body.putArray("tools");
      for (ToolSpec t : req.tools()) {
        ObjectNode fn = tools.addObject().put("type", "function").putObject("function");
        fn.put("name", t.name());
        if (!t.description().isEmpty()) {
          fn.put("description", t.description());
        }
        fn.set("parameters", Requests.schema(t));
      }
    }
    if (req.maxOutputTokens() != null) {
      body.put(maxTokensField, req.maxOutputTokens());
    }
    if (req.temperature() != null) {
      body.put("temperature", req.temperature());
    }
    if (stream) {
      body.put("stream", true);
      body.putObject("stream_options").put("include_usage", true);
    }
    Requests.applyOptions(body, req.options());
    return body;
  }

  /** One message; null for an assistant message that only carries compaction items. */
  private static ObjectNode message(Message m) {
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

  static ChatResponse response(
      JsonNode root, OpenAiChatCompletionsModel client, ChatRequest req, String model) {
    ErrorMapper mapper = client.errorMapper();
    JsonNode choices = root.get("choices");
    if ((choices == null || !choices.isArray())
        && root.has("error")
        && !root.get("error").isNull()) {
      throw mapper.fromStreamEvent(Json.write(root), model, null);
    }
    if (choices == null || !choices.isArray() || choices.isEmpty()) {
      throw ErrorClassifier.malformed(
          mapper, 200, "chat completion (no choices)", Json.write(root), null, null);
    }
    JsonNode choice = choices.get(0);
    JsonNode msg = choice.path("message");
    MessageAssembler a = new MessageAssembler();
    a.appendText(contentText(msg.get("content")));
    String reasoning = reasoningText(msg);
    if (reasoning != null) {
      a.appendReasoning(reasoningType(msg), reasoning);
    }
    JsonNode calls = msg.get("tool_calls");
    if (calls != null && calls.isArray()) {
      int i = 0;
      for (JsonNode c : calls) {
        MessageAssembler.CallPart p = a.call(i++);
        p.id(Json.text(c, "id"));
        JsonNode fn = c.path("function");
        p.name(Json.text(fn, "name"));
        p.arguments(arguments(fn.get("arguments")));
        if (p.id() == null) {
          throw ErrorClassifier.malformed(
              mapper, 200, "chat completion (tool call without id)", Json.write(root), null, null);
        }
      }
    }
    String raw = Json.text(choice, "finish_reason");
    Usage usage = Usages.chatCompletions(root.get("usage"));
    String reported = Json.text(root, "model");
    Message message =
        Requests.finish(a.build(), client.provider(), model, reported, usage, List.of(), req);
    return new ChatResponse(
        message,
        usage,
        finishReason(raw),
        raw,
        ProviderCompaction.NONE,
        Json.text(root, "id"),
        reported);
  }

  static FinishReason finishReason(String raw) {
    if (raw == null) {
      return FinishReason.OTHER;
    }
    return switch (raw) {
      case "stop" -> FinishReason.STOP;
      case "length" -> FinishReason.LENGTH;
      case "tool_calls", "function_call" -> FinishReason.TOOL_CALLS;
      case "content_filter" -> FinishReason.CONTENT_FILTER;
      default -> FinishReason.OTHER;
    };
  }

  /** Text of a content field: a string, or the text parts of an array. */
  static String contentText(JsonNode content) {
    if (content == null || content.isNull()) {
      return "";
    }
    if (content.isTextual()) {
      return content.asText();
    }
    if (content.isArray()) {
      StringBuilder sb = new StringBuilder();
      for (JsonNode part : content) {
        String t = Json.text(part, "text");
        if (t != null) {
          sb.append(t);
        }
      }
      return sb.toString();
    }
    return "";
  }

  /** Reasoning of OpenAI-compatible servers: {@code reasoning_content} or {@code reasoning}. */
  static String reasoningText(JsonNode msgOrDelta) {
    for (String f : new String[] {"reasoning_content", "reasoning"}) {
      JsonNode v = msgOrDelta.get(f);
      if (v != null && v.isTextual() && !v.asText().isEmpty()) {
        return v.asText();
      }
    }
    return null;
  }

  static String reasoningType(JsonNode msgOrDelta) {
    JsonNode v = msgOrDelta.get("reasoning_content");
    return v != null && v.isTextual() && !v.asText().isEmpty() ? "reasoning_content" : "reasoning";
  }

  static String arguments(JsonNode args) {
    if (args == null || args.isNull()) {
      return "";
    }
    return args.isTextual() ? args.asText() : Json.write(args);
  }
}
