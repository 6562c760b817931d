package dev.compactor.models.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.model.ToolCallDelta;
import dev.compactor.models.internal.AssembledStream;
import dev.compactor.models.internal.MessageAssembler;
import dev.compactor.models.internal.SseEvent;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.usage.Usages;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * One streamed Messages attempt: {@code message_start} (id, model, input usage), {@code
 * content_block_start}/{@code delta}/{@code stop} per block ({@code text_delta}, {@code
 * thinking_delta}, {@code signature_delta}, {@code input_json_delta}, {@code compaction_delta}),
 * {@code message_delta} (stop reason, output usage, applied edits), {@code message_stop}. {@code
 * ping} is ignored; {@code error} events are mapped like HTTP errors.
 */
final class AnthropicStream extends AssembledStream<AnthropicMessagesModel> {

  /** content block index → tool call ordinal */
  private final Map<Integer, Integer> callByBlock = new HashMap<>();

  /** content block index → compaction block being streamed */
  private final Map<Integer, ObjectNode> compactionByBlock = new HashMap<>();

  private String id;
  private String stopReason;
  private ObjectNode usage = Json.object();
  private JsonNode contextManagement;

  AnthropicStream(
      AnthropicMessagesModel client, ChatRequest request, String model, StreamListener listener) {
    super(client, request, model, listener, "no message_stop");
  }

  @Override
  protected boolean onData(SseEvent event, String data) {
    JsonNode node = object(data, "stream event");
    String type = type(node, event);
    switch (type) {
      case "message_start" -> {
        JsonNode msg = node.path("message");
        id = Json.scalar(msg, "id");
        reported = Json.scalar(msg, "model");
        mergeUsage(msg.get("usage"));
      }
      case "content_block_start" ->
          blockStart(node.path("index").asInt(), node.path("content_block"));
      case "content_block_delta" -> blockDelta(node.path("index").asInt(), node.path("delta"));
      case "content_block_stop" -> blockStop(node.path("index").asInt());
      case "message_delta" -> {
        String sr = Json.scalar(node.path("delta"), "stop_reason");
        if (sr != null) {
          stopReason = sr;
        }
        mergeUsage(node.get("usage"));
        if (node.path("context_management").isObject()) {
          contextManagement = node.get("context_management");
        }
      }
      case "message_stop" -> {
        finish();
        return false;
      }
      case "error" -> throw client.errorMapper().fromStreamEvent(data, model, partial());
      default -> {
        // ping and future events
      }
    }
    return true;
  }

  private void blockStart(int index, JsonNode block) {
    String type = Json.scalar(block, "type");
    if (type == null) {
      return;
    }
    switch (type) {
      case "text" -> {
        String t = Json.scalar(block, "text");
        if (t != null && !t.isEmpty()) {
          text(t);
        }
      }
      case "thinking" -> {
        MessageAssembler.ReasoningPart p = assembler.reasoning(index, "thinking");
        String t = Json.scalar(block, "thinking");
        if (t != null && !t.isEmpty()) {
          p.append(t);
          delivered = true;
          listener.onReasoning(t);
        }
        String sig = Json.scalar(block, "signature");
        if (sig != null && !sig.isEmpty()) {
          p.signature(sig);
        }
      }
      case "redacted_thinking" -> {
        assembler.reasoning(index, "redacted_thinking").append(Json.scalar(block, "data"));
        delivered = true;
      }
      case "tool_use" -> {
        int call = callByBlock.computeIfAbsent(index, k -> callByBlock.size());
        MessageAssembler.CallPart p = assembler.call(call);
        p.id(Json.scalar(block, "id"));
        p.name(Json.scalar(block, "name"));
        delivered = true;
        listener.onToolCall(
            new ToolCallDelta(call, Json.scalar(block, "id"), Json.scalar(block, "name"), ""));
      }
      case "compaction" -> {
        compactionByBlock.put(index, ((ObjectNode) block).deepCopy());
        listener.onCompacting();
      }
      default -> {
        // server tool blocks are not kept
      }
    }
  }

  private void blockDelta(int index, JsonNode delta) {
    String type = Json.scalar(delta, "type");
    if (type == null) {
      return;
    }
    switch (type) {
      case "text_delta" -> text(Json.scalar(delta, "text"));
      case "thinking_delta" -> {
        String t = Json.scalar(delta, "thinking");
        if (t != null) {
          assembler.reasoning(index, "thinking").append(t);
          delivered = true;
          listener.onReasoning(t);
        }
      }
      case "signature_delta" ->
          assembler.reasoning(index, "thinking").appendSignature(Json.scalar(delta, "signature"));
      case "input_json_delta" -> {
        Integer call = callByBlock.get(index);
        String part = Json.scalar(delta, "partial_json");
        if (call != null && part != null) {
          assembler.call(call).appendArguments(part);
          delivered = true;
          listener.onToolCall(new ToolCallDelta(call, null, null, part));
        }
      }
      case "compaction_delta" -> {
        ObjectNode block =
            compactionByBlock.computeIfAbsent(index, k -> Json.object().put("type", "compaction"));
        JsonNode content = delta.get("content");
        if (content != null && content.isTextual()) {
          String before = block.path("content").isTextual() ? block.get("content").asText() : "";
          block.put("content", before + content.asText());
        } else if (content != null && content.isNull() && !block.has("content")) {
          block.putNull("content");
        }
      }
      default -> {
        // citations and future deltas
      }
    }
  }

  private void blockStop(int index) {
    ObjectNode compaction = compactionByBlock.remove(index);
    if (compaction != null) {
      assembler.addCompactionItem(AnthropicWire.compactionItem(compaction));
    }
  }

  private void text(String t) {
    if (t == null || t.isEmpty()) {
      return;
    }
    assembler.appendText(t);
    delivered = true;
    listener.onText(t);
  }

  private void mergeUsage(JsonNode u) {
    if (u == null || !u.isObject()) {
      return;
    }
    Iterator<Map.Entry<String, JsonNode>> it = u.fields();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isNull()) {
        usage.set(e.getKey(), e.getValue());
      }
    }
    Usage parsed = Usages.anthropic(usage);
    if (parsed != null) {
      listener.onUsage(parsed);
    }
  }

  private void finish() {
    for (Map.Entry<Integer, ObjectNode> e : compactionByBlock.entrySet()) {
      assembler.addCompactionItem(AnthropicWire.compactionItem(e.getValue()));
    }
    compactionByBlock.clear();
    for (Integer call : callByBlock.values()) {
      MessageAssembler.CallPart p = assembler.call(call);
      if (p.argumentsEmpty()) {
        p.arguments("{}");
      }
    }
    completed(
        AnthropicWire.build(
            assembler,
            stopReason,
            usage.isEmpty() ? null : usage,
            contextManagement,
            id,
            reported,
            client,
            request,
            model));
  }
}
