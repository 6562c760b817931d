package dev.compactor.models.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.model.ToolCallDelta;
import dev.compactor.models.internal.AssembledStream;
import dev.compactor.models.internal.MessageAssembler;
import dev.compactor.models.internal.Requests;
import dev.compactor.models.internal.SseEvent;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import dev.compactor.wire.usage.Usages;
import java.util.List;

/**
 * One streamed Chat Completions attempt: {@code data:} chunks with {@code choices[0].delta}, a
 * final chunk with {@code usage} ({@code stream_options.include_usage}), then {@code [DONE]}. An
 * {@code error} object in a chunk is mapped like an HTTP error.
 */
final class ChatCompletionsStream extends AssembledStream<OpenAiChatCompletionsModel> {
  private boolean done;
  private String finish;
  private Usage usage;
  private String id;

  ChatCompletionsStream(
      OpenAiChatCompletionsModel client,
      ChatRequest request,
      String model,
      StreamListener listener) {
    super(client, request, model, listener, "no finish_reason and no [DONE]");
  }

  @Override
  protected boolean onData(SseEvent event, String data) {
    if (data.equals("[DONE]")) {
      done = true;
      return false;
    }
    JsonNode node = object(data, "stream chunk");
    if ("error".equals(event.event()) || (node.has("error") && !node.get("error").isNull())) {
      throw client.errorMapper().fromStreamEvent(data, model, partial());
    }
    if (id == null) {
      id = Json.scalar(node, "id");
    }
    if (reported == null) {
      reported = Json.scalar(node, "model");
    }
    JsonNode u = node.get("usage");
    if (u != null && u.isObject()) {
      usage = Usages.chatCompletions(u);
      listener.onUsage(usage);
    }
    JsonNode choices = node.get("choices");
    if (choices != null && choices.isArray() && !choices.isEmpty()) {
      JsonNode choice = choices.get(0);
      JsonNode delta = choice.path("delta");
      String text = ChatCompletionsMessages.responseText(delta.get("content"));
      if (!text.isEmpty()) {
        assembler.appendText(text);
        delivered = true;
        listener.onText(text);
      }
      String reasoning = ChatCompletionsMessages.reasoningText(delta);
      if (reasoning != null) {
        assembler.appendReasoning(ChatCompletionsMessages.reasoningType(delta), reasoning);
        delivered = true;
        listener.onReasoning(reasoning);
      }
      JsonNode calls = delta.get("tool_calls");
      if (calls != null && calls.isArray()) {
        for (JsonNode c : calls) {
          toolCall(c);
        }
      }
      String f = Json.scalar(choice, "finish_reason");
      if (f != null) {
        finish = f;
      }
    }
    return true;
  }

  private void toolCall(JsonNode c) {
    String callId = Json.scalar(c, "id");
    int index;
    if (c.path("index").isIntegralNumber()) {
      index = c.get("index").asInt();
    } else if (callId != null && !assembler.hasCallWithId(callId)) {
      index = assembler.lastCallIndex() + 1;
    } else {
      index = Math.max(0, assembler.lastCallIndex());
    }
    JsonNode fn = c.path("function");
    String name = Json.scalar(fn, "name");
    String args = ChatCompletionsMessages.arguments(fn.get("arguments"));
    MessageAssembler.CallPart part = assembler.call(index);
    part.id(callId);
    part.name(name);
    part.appendArguments(args);
    delivered = true;
    listener.onToolCall(new ToolCallDelta(index, callId, name, args));
  }

  @Override
  protected boolean complete() {
    return done || finish != null;
  }

  @Override
  public ChatResponse response() {
    Message m =
        Requests.finish(
            assembler.build(), client.provider(), model, reported, usage, List.of(), request);
    return new ChatResponse(
        m,
        usage,
        ChatCompletionsWire.finishReason(finish),
        finish,
        ProviderCompaction.NONE,
        id,
        reported);
  }
}
