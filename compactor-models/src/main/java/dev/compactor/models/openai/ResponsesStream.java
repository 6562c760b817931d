package dev.compactor.models.openai;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.model.ToolCallDelta;
import dev.compactor.models.internal.AssembledStream;
import dev.compactor.models.internal.ErrorClassifier;
import dev.compactor.models.internal.ErrorMapper;
import dev.compactor.models.internal.MessageAssembler;
import dev.compactor.models.internal.SseEvent;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import dev.compactor.wire.openai.ResponsesItems;
import java.util.HashMap;
import java.util.Map;

/**
 * One streamed Responses attempt. Deltas ({@code response.output_text.delta}, {@code
 * response.function_call_arguments.delta}, reasoning summary deltas) go to the listener and the
 * assembler; {@code response.completed} / {@code response.incomplete} carry the whole response,
 * which is parsed as a non-streamed one; {@code response.failed} and {@code error} events (which
 * arrive after HTTP 200) are mapped like HTTP errors.
 */
final class ResponsesStream extends AssembledStream<OpenAiResponsesModel> {
  private final Map<Integer, Integer> callIndexByOutput = new HashMap<>();

  ResponsesStream(
      OpenAiResponsesModel client, ChatRequest request, String model, StreamListener listener) {
    super(client, request, model, listener, "no response.completed");
  }

  @Override
  protected boolean onData(SseEvent event, String data) {
    if (data.equals("[DONE]")) {
      onEnd(); // [DONE] before response.completed: incomplete
      return false;
    }
    ErrorMapper mapper = client.errorMapper();
    JsonNode node = object(data, "stream event");
    String type = type(node, event);
    switch (type) {
      case "response.created", "response.in_progress" -> {
        if (reported == null) {
          reported = Json.scalar(node.path("response"), "model");
        }
      }
      case "response.output_text.delta" -> {
        String d = Json.scalar(node, "delta");
        if (d != null && !d.isEmpty()) {
          assembler.appendText(d);
          delivered = true;
          listener.onText(d);
        }
      }
      case "response.reasoning_summary_text.delta", "response.reasoning_text.delta" -> {
        String d = Json.scalar(node, "delta");
        if (d != null && !d.isEmpty()) {
          assembler.appendReasoning("reasoning", d);
          delivered = true;
          listener.onReasoning(d);
        }
      }
      case "response.output_item.added" -> {
        JsonNode item = node.path("item");
        if ("function_call".equals(Json.scalar(item, "type"))) {
          int index = callIndex(node);
          MessageAssembler.CallPart p = assembler.call(index);
          p.id(Json.scalar(item, "call_id"));
          p.name(Json.scalar(item, "name"));
          String args = ChatCompletionsMessages.arguments(item.get("arguments"));
          p.appendArguments(args);
          delivered = true;
          listener.onToolCall(
              new ToolCallDelta(
                  index, Json.scalar(item, "call_id"), Json.scalar(item, "name"), args));
        }
      }
      case "response.function_call_arguments.delta" -> {
        int index = callIndex(node);
        String d = Json.scalar(node, "delta");
        assembler.call(index).appendArguments(d == null ? "" : d);
        delivered = true;
        listener.onToolCall(new ToolCallDelta(index, null, null, d));
      }
      case "response.function_call_arguments.done" -> {
        String args = Json.scalar(node, "arguments");
        if (args != null) {
          assembler.call(callIndex(node)).arguments(args);
        }
      }
      case "response.output_item.done" -> {
        JsonNode item = node.path("item");
        String itemType = Json.scalar(item, "type");
        if ("function_call".equals(itemType)) {
          MessageAssembler.CallPart p = assembler.call(callIndex(node));
          p.id(Json.scalar(item, "call_id"));
          p.name(Json.scalar(item, "name"));
          String args = Json.scalar(item, "arguments");
          if (args != null) {
            p.arguments(args);
          }
        } else if ("compaction".equals(itemType)) {
          assembler.addCompactionItem(ResponsesItems.compactionItem(item));
        }
      }
      case "response.compaction.compacting" -> listener.onCompacting();
      case "response.completed", "response.incomplete" -> {
        JsonNode resp = node.path("response");
        if (!resp.isObject()) {
          throw ErrorClassifier.malformed(mapper, 200, type + " event", data, partial(), null);
        }
        ResponsesWire.Output out = ResponsesWire.output(resp.get("output"), mapper, resp);
        if (!out.assembler.hasOutput() && assembler.hasOutput()) {
          // a server that leaves the final output empty: keep what was streamed
          out = streamedOutput();
        }
        completed(ResponsesWire.build(resp, out, client, request, model));
        return false;
      }
      case "response.failed" -> {
        JsonNode err = node.path("response").path("error");
        throw mapper.fromStreamEvent(err.isObject() ? Json.write(err) : data, model, partial());
      }
      case "error" -> throw mapper.fromStreamEvent(data, model, partial());
      default -> {
        // other events (content_part, annotations, built-in tools) carry nothing we keep
      }
    }
    return true;
  }

  private ResponsesWire.Output streamedOutput() {
    ResponsesWire.Output out = new ResponsesWire.Output();
    Message m = assembler.build();
    out.assembler.appendText(m.content());
    for (int i = 0; i < m.toolCalls().size(); i++) {
      MessageAssembler.CallPart p = out.assembler.call(i);
      p.id(m.toolCalls().get(i).id());
      p.name(m.toolCalls().get(i).name());
      p.arguments(m.toolCalls().get(i).arguments());
    }
    for (int i = 0; i < m.reasoning().size(); i++) {
      out.assembler.reasoning(i, m.reasoning().get(i).type()).append(m.reasoning().get(i).text());
    }
    out.compaction.addAll(assembler.compactionItems());
    return out;
  }

  /** The call index of an event's {@code output_index}: calls are numbered in output order. */
  private int callIndex(JsonNode node) {
    int outputIndex = node.path("output_index").asInt(-1);
    return callIndexByOutput.computeIfAbsent(outputIndex, k -> callIndexByOutput.size());
  }
}
