package dev.compactor.models.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.models.internal.ErrorClassifier;
import dev.compactor.models.internal.ErrorMapper;
import dev.compactor.models.internal.MessageAssembler;
import dev.compactor.models.internal.Requests;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import dev.compactor.wire.tools.ToolDefinitions;
import dev.compactor.wire.usage.Usages;
import java.util.List;

/** The Chat Completions wire format: request bodies and response parsing. */
final class ChatCompletionsWire {
  private ChatCompletionsWire() {}

  static ObjectNode request(ChatRequest req, String model, boolean stream, String maxTokensField) {
    ObjectNode body = Json.object();
    body.put("model", model);
    ArrayNode messages = body.putArray("messages");
    for (Message m : Requests.sendable(req.messages())) {
      ObjectNode o = ChatCompletionsMessages.encode(m);
      if (o != null) {
        messages.add(o);
      }
    }
    if (!req.tools().isEmpty()) {
      ArrayNode tools = body.putArray("tools");
      for (ToolSpec t : req.tools()) {
        ToolDefinitions.add(tools, t, ToolDefinitions.Dialect.CHAT_COMPLETIONS);
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
    a.appendText(ChatCompletionsMessages.responseText(msg.get("content")));
    String reasoning = ChatCompletionsMessages.reasoningText(msg);
    if (reasoning != null) {
      a.appendReasoning(ChatCompletionsMessages.reasoningType(msg), reasoning);
    }
    JsonNode calls = msg.get("tool_calls");
    if (calls != null && calls.isArray()) {
      int i = 0;
      for (JsonNode c : calls) {
        MessageAssembler.CallPart p = a.call(i++);
        p.id(Json.scalar(c, "id"));
        JsonNode fn = c.path("function");
        p.name(Json.scalar(fn, "name"));
        p.arguments(ChatCompletionsMessages.arguments(fn.get("arguments")));
        if (p.id() == null) {
          throw ErrorClassifier.malformed(
              mapper, 200, "chat completion (tool call without id)", Json.write(root), null, null);
        }
      }
    }
    String raw = Json.scalar(choice, "finish_reason");
    Usage usage = Usages.chatCompletions(root.get("usage"));
    String reported = Json.scalar(root, "model");
    Message message =
        Requests.finish(a.build(), client.provider(), model, reported, usage, List.of(), req);
    return new ChatResponse(
        message,
        usage,
        finishReason(raw),
        raw,
        ProviderCompaction.NONE,
        Json.scalar(root, "id"),
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
}
