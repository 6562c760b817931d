package dev.compactor.testkit.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders answers and errors in each wire format, as bodies and as event streams, following the
 * providers' documented shapes.
 */
final class Renderer {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Renderer() {}

  /** A rendered HTTP answer: status, body (JSON) or events (SSE), never both. */
  record Rendered(int status, String body, List<String> events) {
    static Rendered json(int status, JsonNode body) {
      return new Rendered(status, body.toString(), null);
    }

    static Rendered stream(List<String> events) {
      return new Rendered(200, null, events);
    }
  }

  /** What the answer reports: the reply's usage or the server's estimate. */
  record Counts(long input, long output, long cacheRead, long cacheWrite) {}

  // ------------------------------------------------------------------ answers

  static Rendered answer(WireFormat f, Reply r, String model, int id, Counts c, boolean stream) {
    return switch (f) {
      case CHAT_COMPLETIONS -> stream ? chatStream(r, model, id, c) : chatBody(r, model, id, c);
      case RESPONSES ->
          stream ? responsesStream(r, model, id, c) : Rendered.json(200, response(r, model, id, c));
      case ANTHROPIC_MESSAGES ->
          stream ? anthropicStream(r, model, id, c) : Rendered.json(200, message(r, model, id, c));
    };
  }

  private static String chatFinish(Reply r) {
    return r.finishReason != null ? r.finishReason : r.toolCalls.isEmpty() ? "stop" : "tool_calls";
  }

  private static ObjectNode chatUsage(Counts c) {
    ObjectNode u = JSON.createObjectNode();
    u.put("prompt_tokens", c.input() + c.cacheRead());
    u.put("completion_tokens", c.output());
    u.put("total_tokens", c.input() + c.cacheRead() + c.output());
    u.putObject("prompt_tokens_details").put("cached_tokens", c.cacheRead());
    u.putObject("completion_tokens_details").put("reasoning_tokens", 0);
    return u;
  }

  private static Rendered chatBody(Reply r, String model, int id, Counts c) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", "chatcmpl-" + id).put("object", "chat.completion").put("created", 1767225600);
    o.put("model", model);
    ObjectNode choice = o.putArray("choices").addObject().put("index", 0);
    ObjectNode msg = choice.putObject("message").put("role", "assistant");
    if (r.text.isEmpty() && !r.toolCalls.isEmpty()) {
      msg.putNull("content");
    } else {
      msg.put("content", r.text);
    }
    if (!r.toolCalls.isEmpty()) {
      ArrayNode tc = msg.putArray("tool_calls");
      for (Reply.ToolCall t : r.toolCalls) {
        ObjectNode call = tc.addObject().put("id", t.id()).put("type", "function");
        call.putObject("function").put("name", t.name()).put("arguments", t.arguments());
      }
    }
    choice.put("finish_reason", chatFinish(r));
    o.set("usage", chatUsage(c));
    return Rendered.json(200, o);
  }

  private static Rendered chatStream(Reply r, String model, int id, Counts c) {
    List<String> events = new ArrayList<>();
    events.add(
        data(
            chatChunk(
                model,
                id,
                JSON.createObjectNode().put("role", "assistant").put("content", ""),
                null)));
    for (String piece : pieces(r.text)) {
      events.add(data(chatChunk(model, id, JSON.createObjectNode().put("content", piece), null)));
    }
    for (int i = 0; i < r.toolCalls.size(); i++) {
      Reply.ToolCall t = r.toolCalls.get(i);
      ObjectNode start = JSON.createObjectNode();
      ObjectNode call = start.putArray("tool_calls").addObject();
      call.put("index", i).put("id", t.id()).put("type", "function");
      call.putObject("function").put("name", t.name()).put("arguments", "");
      events.add(data(chatChunk(model, id, start, null)));
      for (String piece : pieces(t.arguments())) {
        ObjectNode d = JSON.createObjectNode();
        d.putArray("tool_calls")
            .addObject()
            .put("index", i)
            .putObject("function")
            .put("arguments", piece);
        events.add(data(chatChunk(model, id, d, null)));
      }
    }
    events.add(data(chatChunk(model, id, JSON.createObjectNode(), chatFinish(r))));
    ObjectNode usage = chatChunkBase(model, id);
    usage.putArray("choices");
    usage.set("usage", chatUsage(c));
    events.add(data(usage));
    events.add("data: [DONE]");
    return Rendered.stream(events);
  }

  private static ObjectNode chatChunkBase(String model, int id) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", "chatcmpl-" + id).put("object", "chat.completion.chunk").put("created", 1767225600);
    o.put("model", model);
    return o;
  }

  private static ObjectNode chatChunk(String model, int id, ObjectNode delta, String finish) {
    ObjectNode o = chatChunkBase(model, id);
    ObjectNode choice = o.putArray("choices").addObject().put("index", 0);
    choice.set("delta", delta);
    if (finish == null) {
      choice.putNull("finish_reason");
    } else {
      choice.put("finish_reason", finish);
    }
    return o;
  }

  private static ObjectNode responsesUsage(Counts c) {
    ObjectNode u = JSON.createObjectNode();
    u.put("input_tokens", c.input() + c.cacheRead());
    u.putObject("input_tokens_details").put("cached_tokens", c.cacheRead());
    u.put("output_tokens", c.output());
    u.putObject("output_tokens_details").put("reasoning_tokens", 0);
    u.put("total_tokens", c.input() + c.cacheRead() + c.output());
    return u;
  }

  private static List<ObjectNode> responseItems(Reply r, int id) {
    List<ObjectNode> items = new ArrayList<>();
    if (r.compacted) {
      items.add(
          JSON.createObjectNode()
              .put("id", "cmp_" + id)
              .put("type", "compaction")
              .put("encrypted_content", "gAAAA-compacted-" + id));
    }
    if (!r.reasoning.isEmpty()) {
      ObjectNode reasoning = JSON.createObjectNode().put("id", "rs_" + id).put("type", "reasoning");
      reasoning
          .putArray("summary")
          .addObject()
          .put("type", "summary_text")
          .put("text", r.reasoning);
      items.add(reasoning);
    }
    if (!r.text.isEmpty()) {
      ObjectNode msg =
          JSON.createObjectNode()
              .put("id", "msg_" + id)
              .put("type", "message")
              .put("status", "completed")
              .put("role", "assistant");
      msg.putArray("content")
          .addObject()
          .put("type", "output_text")
          .put("text", r.text)
          .putArray("annotations");
      items.add(msg);
    }
    int n = 0;
    for (Reply.ToolCall t : r.toolCalls) {
      items.add(
          JSON.createObjectNode()
              .put("id", "fc_" + id + "_" + n++)
              .put("type", "function_call")
              .put("status", "completed")
              .put("call_id", t.id())
              .put("name", t.name())
              .put("arguments", t.arguments()));
    }
    return items;
  }

  private static ObjectNode response(Reply r, String model, int id, Counts c) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", "resp_" + id).put("object", "response").put("created_at", 1767225600);
    boolean incomplete = r.finishReason != null && !r.finishReason.equals("completed");
    o.put("status", incomplete ? "incomplete" : "completed");
    if (incomplete) {
      o.putObject("incomplete_details").put("reason", r.finishReason);
    } else {
      o.putNull("incomplete_details");
    }
    o.putNull("error");
    o.put("model", model);
    ArrayNode output = o.putArray("output");
    responseItems(r, id).forEach(output::add);
    o.set("usage", responsesUsage(c));
    return o;
  }

  private static Rendered responsesStream(Reply r, String model, int id, Counts c) {
    Sequence seq = new Sequence();
    List<String> events = new ArrayList<>();
    ObjectNode created = response(r, model, id, c);
    created.put("status", "in_progress");
    created.putArray("output");
    created.remove("usage");
    events.add(seq.event("response.created", JSON.createObjectNode().set("response", created)));
    List<ObjectNode> items = responseItems(r, id);
    for (int i = 0; i < items.size(); i++) {
      ObjectNode item = items.get(i);
      String type = item.path("type").asText();
      if (type.equals("compaction")) {
        events.add(
            seq.event(
                "response.compaction.compacting",
                JSON.createObjectNode()
                    .put("item_id", item.path("id").asText())
                    .put("output_index", i)));
      }
      ObjectNode added = item.deepCopy();
      if (type.equals("message")) {
        added.putArray("content");
        added.put("status", "in_progress");
      } else if (type.equals("function_call")) {
        added.put("arguments", "");
        added.put("status", "in_progress");
      } else if (type.equals("reasoning")) {
        added.putArray("summary");
      }
      events.add(
          seq.event(
              "response.output_item.added",
              JSON.createObjectNode().put("output_index", i).set("item", added)));
      String itemId = item.path("id").asText();
      switch (type) {
        case "message" -> {
          for (String piece : pieces(r.text)) {
            events.add(
                seq.event(
                    "response.output_text.delta",
                    JSON.createObjectNode()
                        .put("item_id", itemId)
                        .put("output_index", i)
                        .put("content_index", 0)
                        .put("delta", piece)));
          }
          events.add(
              seq.event(
                  "response.output_text.done",
                  JSON.createObjectNode()
                      .put("item_id", itemId)
                      .put("output_index", i)
                      .put("content_index", 0)
                      .put("text", r.text)));
        }
        case "function_call" -> {
          String args = item.path("arguments").asText();
          for (String piece : pieces(args)) {
            events.add(
                seq.event(
                    "response.function_call_arguments.delta",
                    JSON.createObjectNode()
                        .put("item_id", itemId)
                        .put("output_index", i)
                        .put("delta", piece)));
          }
          events.add(
              seq.event(
                  "response.function_call_arguments.done",
                  JSON.createObjectNode()
                      .put("item_id", itemId)
                      .put("output_index", i)
                      .put("arguments", args)));
        }
        case "reasoning" ->
            events.add(
                seq.event(
                    "response.reasoning_summary_text.delta",
                    JSON.createObjectNode()
                        .put("item_id", itemId)
                        .put("output_index", i)
                        .put("summary_index", 0)
                        .put("delta", r.reasoning)));
        default -> {}
      }
      events.add(
          seq.event(
              "response.output_item.done",
              JSON.createObjectNode().put("output_index", i).set("item", item)));
    }
    ObjectNode done = response(r, model, id, c);
    String last =
        done.path("status").asText().equals("incomplete")
            ? "response.incomplete"
            : "response.completed";
    events.add(seq.event(last, JSON.createObjectNode().set("response", done)));
    return Rendered.stream(events);
  }

  private static String anthropicStop(Reply r) {
    return r.finishReason != null
        ? r.finishReason
        : r.toolCalls.isEmpty() ? "end_turn" : "tool_use";
  }

  private static ObjectNode anthropicUsage(Counts c) {
    ObjectNode u = JSON.createObjectNode();
    u.put("input_tokens", c.input());
    u.put("cache_creation_input_tokens", c.cacheWrite());
    u.put("cache_read_input_tokens", c.cacheRead());
    u.put("output_tokens", c.output());
    return u;
  }

  private static List<ObjectNode> anthropicBlocks(Reply r, int id) {
    List<ObjectNode> blocks = new ArrayList<>();
    if (r.compacted) {
      blocks.add(
          JSON.createObjectNode()
              .put("type", "compaction")
              .put("content", "Summary of the earlier conversation."));
    }
    if (!r.reasoning.isEmpty()) {
      blocks.add(
          JSON.createObjectNode()
              .put("type", "thinking")
              .put("thinking", r.reasoning)
              .put("signature", "sig-" + id));
    }
    if (!r.text.isEmpty()) {
      blocks.add(JSON.createObjectNode().put("type", "text").put("text", r.text));
    }
    for (Reply.ToolCall t : r.toolCalls) {
      ObjectNode b =
          JSON.createObjectNode().put("type", "tool_use").put("id", t.id()).put("name", t.name());
      b.set("input", parseObject(t.arguments()));
      blocks.add(b);
    }
    return blocks;
  }

  private static ObjectNode message(Reply r, String model, int id, Counts c) {
    ObjectNode o = JSON.createObjectNode();
    o.put("id", "msg_" + id).put("type", "message").put("role", "assistant").put("model", model);
    ArrayNode content = o.putArray("content");
    anthropicBlocks(r, id).forEach(content::add);
    o.put("stop_reason", anthropicStop(r));
    o.putNull("stop_sequence");
    o.set("usage", anthropicUsage(c));
    return o;
  }

  private static Rendered anthropicStream(Reply r, String model, int id, Counts c) {
    List<String> events = new ArrayList<>();
    ObjectNode start = message(r, model, id, c);
    start.putArray("content");
    start.putNull("stop_reason");
    ((ObjectNode) start.get("usage")).put("output_tokens", 1);
    events.add(
        event(
            "message_start",
            JSON.createObjectNode().put("type", "message_start").set("message", start)));
    events.add(event("ping", JSON.createObjectNode().put("type", "ping")));
    List<ObjectNode> blocks = anthropicBlocks(r, id);
    for (int i = 0; i < blocks.size(); i++) {
      ObjectNode b = blocks.get(i);
      String type = b.path("type").asText();
      ObjectNode opening = b.deepCopy();
      List<ObjectNode> deltas = new ArrayList<>();
      switch (type) {
        case "text" -> {
          opening.put("text", "");
          for (String piece : pieces(b.path("text").asText())) {
            deltas.add(JSON.createObjectNode().put("type", "text_delta").put("text", piece));
          }
        }
        case "thinking" -> {
          opening.put("thinking", "").put("signature", "");
          deltas.add(
              JSON.createObjectNode()
                  .put("type", "thinking_delta")
                  .put("thinking", b.path("thinking").asText()));
          deltas.add(
              JSON.createObjectNode()
                  .put("type", "signature_delta")
                  .put("signature", b.path("signature").asText()));
        }
        case "tool_use" -> {
          opening.putObject("input");
          for (String piece : pieces(b.path("input").toString())) {
            deltas.add(
                JSON.createObjectNode().put("type", "input_json_delta").put("partial_json", piece));
          }
        }
        case "compaction" -> {
          opening.putNull("content");
          deltas.add(
              JSON.createObjectNode()
                  .put("type", "compaction_delta")
                  .put("content", b.path("content").asText()));
        }
        default -> {}
      }
      events.add(
          event(
              "content_block_start",
              JSON.createObjectNode()
                  .put("type", "content_block_start")
                  .put("index", i)
                  .set("content_block", opening)));
      for (ObjectNode d : deltas) {
        events.add(
            event(
                "content_block_delta",
                JSON.createObjectNode()
                    .put("type", "content_block_delta")
                    .put("index", i)
                    .set("delta", d)));
      }
      events.add(
          event(
              "content_block_stop",
              JSON.createObjectNode().put("type", "content_block_stop").put("index", i)));
    }
    ObjectNode delta = JSON.createObjectNode().put("type", "message_delta");
    delta.putObject("delta").put("stop_reason", anthropicStop(r)).putNull("stop_sequence");
    delta.putObject("usage").put("output_tokens", c.output());
    events.add(event("message_delta", delta));
    events.add(event("message_stop", JSON.createObjectNode().put("type", "message_stop")));
    return Rendered.stream(events);
  }

  // ------------------------------------------------------------------ errors

  /** The HTTP status a provider answers {@code e} with. */
  static int status(WireFormat f, Reply.Error e) {
    return switch (e) {
      case CONTEXT_LENGTH_EXCEEDED, INVALID_REQUEST -> 400;
      case RATE_LIMITED -> 429;
      case OVERLOADED -> f == WireFormat.ANTHROPIC_MESSAGES ? 529 : 500;
      case AUTHENTICATION -> 401;
      case MODEL_NOT_FOUND -> 404;
    };
  }

  /**
   * The provider's error object for {@code e}: OpenAI {@code {"error": {message, type, param,
   * code}}}, Anthropic {@code {"type": "error", "error": {type, message}}}.
   *
   * @param message the message, or null for the provider's default one
   * @param prompt the request's estimated prompt tokens
   * @param window the server's context window (0 when unlimited)
   */
  static ObjectNode error(
      WireFormat f,
      Reply.Error e,
      String message,
      String param,
      String model,
      long prompt,
      long window) {
    if (f == WireFormat.ANTHROPIC_MESSAGES) {
      ObjectNode o = JSON.createObjectNode().put("type", "error");
      String type =
          switch (e) {
            case CONTEXT_LENGTH_EXCEEDED, INVALID_REQUEST -> "invalid_request_error";
            case RATE_LIMITED -> "rate_limit_error";
            case OVERLOADED -> "overloaded_error";
            case AUTHENTICATION -> "authentication_error";
            case MODEL_NOT_FOUND -> "not_found_error";
          };
      String text =
          message != null
              ? message
              : switch (e) {
                case CONTEXT_LENGTH_EXCEEDED ->
                    "prompt is too long: " + prompt + " tokens > " + window + " maximum";
                case INVALID_REQUEST -> "invalid request";
                case RATE_LIMITED ->
                    "This request would exceed the rate limit for your organization of 50 requests"
                        + " per minute.";
                case OVERLOADED -> "Overloaded";
                case AUTHENTICATION -> "invalid x-api-key";
                case MODEL_NOT_FOUND -> "model: " + model;
              };
      o.putObject("error").put("type", type).put("message", text);
      o.put("request_id", "req_fake");
      return o;
    }
    ObjectNode o = JSON.createObjectNode();
    ObjectNode err = o.putObject("error");
    String text;
    String type;
    String code;
    switch (e) {
      case CONTEXT_LENGTH_EXCEEDED -> {
        text =
            f == WireFormat.RESPONSES
                ? "Your input exceeds the context window of this model. Please adjust your input"
                    + " and try again."
                : "This model's maximum context length is "
                    + window
                    + " tokens. However, your messages resulted in "
                    + prompt
                    + " tokens. Please reduce the length of the messages.";
        type = "invalid_request_error";
        code = "context_length_exceeded";
        param = f == WireFormat.RESPONSES ? "input" : "messages";
      }
      case INVALID_REQUEST -> {
        text = "invalid request";
        type = "invalid_request_error";
        code = null;
      }
      case RATE_LIMITED -> {
        text =
            "Rate limit reached for "
                + model
                + " on requests per min (RPM): Limit 3, Used 3,"
                + " Requested 1. Please try again in 20s.";
        type = "requests";
        code = "rate_limit_exceeded";
      }
      case OVERLOADED -> {
        text = "The server had an error while processing your request. Sorry about that!";
        type = "server_error";
        code = null;
      }
      case AUTHENTICATION -> {
        text =
            "Incorrect API key provided: sk-fake. You can find your API key at"
                + " https://platform.openai.com/account/api-keys.";
        type = "invalid_request_error";
        code = "invalid_api_key";
      }
      case MODEL_NOT_FOUND -> {
        text = "The model `" + model + "` does not exist or you do not have access to it.";
        type = "invalid_request_error";
        code = "model_not_found";
      }
      default -> throw new IllegalStateException(e.name());
    }
    err.put("message", message != null ? message : text).put("type", type);
    if (param == null) {
      err.putNull("param");
    } else {
      err.put("param", param);
    }
    if (code == null) {
      err.putNull("code");
    } else {
      err.put("code", code);
    }
    return o;
  }

  /** {@code error} as the last event of a stream that began with HTTP 200. */
  static Rendered streamError(WireFormat f, ObjectNode error) {
    List<String> events = new ArrayList<>();
    switch (f) {
      case CHAT_COMPLETIONS -> events.add(data(error));
      case RESPONSES -> {
        ObjectNode created = JSON.createObjectNode();
        created.putObject("response").put("status", "in_progress");
        events.add(
            event(
                "response.created",
                created.put("type", "response.created").put("sequence_number", 0)));
        ObjectNode e = JSON.createObjectNode().put("type", "error").put("sequence_number", 1);
        e.set("error", error.get("error"));
        events.add(event("error", e));
      }
      case ANTHROPIC_MESSAGES -> {
        events.add(event("ping", JSON.createObjectNode().put("type", "ping")));
        events.add(event("error", error));
      }
    }
    return Rendered.stream(events);
  }

  // ------------------------------------------------------------------ helpers

  /** Splits text into a few pieces, so a stream carries more than one delta. */
  static List<String> pieces(String s) {
    List<String> out = new ArrayList<>();
    if (s.isEmpty()) {
      return out;
    }
    int size = Math.max(1, (s.length() + 2) / 3);
    int i = 0;
    while (i < s.length()) {
      int end = Math.min(s.length(), i + size);
      if (end < s.length() && Character.isHighSurrogate(s.charAt(end - 1))) {
        end++; // never split a surrogate pair
      }
      out.add(s.substring(i, end));
      i = end;
    }
    return out;
  }

  private static JsonNode parseObject(String json) {
    try {
      JsonNode n = JSON.readTree(json);
      return n != null && n.isObject() ? n : JSON.createObjectNode();
    } catch (java.io.IOException e) {
      return JSON.createObjectNode();
    }
  }

  private static String data(JsonNode json) {
    return "data: " + json;
  }

  private static String event(String name, JsonNode json) {
    return "event: " + name + "\ndata: " + json;
  }

  /** Responses' {@code sequence_number}, counted per stream. */
  private static final class Sequence {
    private int next;

    String event(String type, ObjectNode data) {
      ObjectNode o = JSON.createObjectNode().put("type", type).put("sequence_number", next++);
      o.setAll(data);
      return Renderer.event(type, o);
    }
  }
}
