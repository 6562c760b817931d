package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Reads a relayed server-sent event stream on the side, as its bytes pass through, and rebuilds the
 * assistant reply the client will echo next time. It never changes or holds back a byte: the relay
 * writes and flushes first, then {@link #feed feeds} the same bytes here. A stream it cannot follow
 * gives no reply ({@link #reply()} null), which only means the next request will not be matched to
 * this conversation by content. Not thread-safe.
 */
abstract class StreamReply {
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();
  private final StringBuilder data = new StringBuilder();
  private boolean failed;

  /** Set when the stream's closing event passed ({@code [DONE]}, {@code message_stop}). */
  protected boolean finished;

  /** Feeds relayed bytes. */
  final void feed(byte[] buf, int off, int len) {
    for (int i = off; i < off + len; i++) {
      byte b = buf[i];
      if (b == '\n') {
        endLine();
      } else if (b != '\r') {
        line.write(b);
      }
    }
  }

  private void endLine() {
    String l = line.toString(StandardCharsets.UTF_8);
    line.reset();
    if (l.isEmpty()) {
      if (data.length() > 0) {
        String d = data.toString();
        data.setLength(0);
        if (d.equals("[DONE]")) {
          finished = true;
        } else {
          JsonNode json = Json.tryParse(d);
          if (json == null || !json.isObject()) {
            failed = true;
          } else {
            try {
              event(json);
            } catch (RuntimeException e) {
              failed = true;
            }
          }
        }
      }
    } else if (l.startsWith("data:")) {
      if (data.length() > 0) {
        data.append('\n');
      }
      data.append(l.startsWith("data: ") ? l.substring(6) : l.substring(5));
    }
  }

  /** Whether the stream's closing event has been fed. */
  final boolean finished() {
    return finished;
  }

  /** One event's data. */
  abstract void event(JsonNode json);

  /** The reply built, or null when the stream could not be followed or held none. */
  final JsonNode reply() {
    return failed ? null : build();
  }

  abstract JsonNode build();

  /** Chat Completions chunks: {@code choices[0].delta} content and tool-call fragments. */
  static final class ChatCompletions extends StreamReply {
    private final StringBuilder text = new StringBuilder();
    private boolean sawContent;
    private boolean sawChoice;
    private final TreeMap<Integer, ObjectNode> calls = new TreeMap<>();
    private final TreeMap<Integer, StringBuilder> args = new TreeMap<>();

    @Override
    void event(JsonNode json) {
      JsonNode choice = json.path("choices").path(0);
      if (!choice.isObject() || choice.path("index").asInt(0) != 0) {
        return;
      }
      sawChoice = true;
      JsonNode delta = choice.path("delta");
      if (delta.path("content").isTextual()) {
        sawContent = true;
        text.append(delta.get("content").asText());
      }
      for (JsonNode c : delta.path("tool_calls")) {
        int index = c.path("index").asInt(calls.size());
        ObjectNode call =
            calls.computeIfAbsent(
                index,
                k -> {
                  ObjectNode o = Json.object();
                  o.put("id", "");
                  o.put("type", "function");
                  o.putObject("function").put("name", "");
                  return o;
                });
        if (c.path("id").isTextual()) {
          call.put("id", c.get("id").asText());
        }
        JsonNode f = c.path("function");
        if (f.path("name").isTextual()) {
          ObjectNode fn = (ObjectNode) call.get("function");
          fn.put("name", fn.path("name").asText() + f.get("name").asText());
        }
        if (f.path("arguments").isTextual()) {
          args.computeIfAbsent(index, k -> new StringBuilder()).append(f.get("arguments").asText());
        }
      }
    }

    @Override
    JsonNode build() {
      if (!sawChoice) {
        return null;
      }
      ObjectNode m = Json.object().put("role", "assistant");
      if (sawContent || calls.isEmpty()) {
        m.put("content", text.toString());
      } else {
        m.putNull("content");
      }
      if (!calls.isEmpty()) {
        ArrayNode a = m.putArray("tool_calls");
        calls.forEach(
            (i, c) -> {
              StringBuilder sb = args.get(i);
              ((ObjectNode) c.get("function")).put("arguments", sb == null ? "" : sb.toString());
              a.add(c);
            });
      }
      return m;
    }
  }

  /** Anthropic events: content blocks started, extended by deltas, stopped. */
  static final class Anthropic extends StreamReply {
    private final TreeMap<Integer, ObjectNode> blocks = new TreeMap<>();
    private final TreeMap<Integer, StringBuilder> json = new TreeMap<>();
    private boolean started;

    @Override
    void event(JsonNode e) {
      String type = e.path("type").asText();
      switch (type) {
        case "message_start" -> started = true;
        case "message_stop" -> finished = true;
        case "content_block_start" -> {
          JsonNode b = e.path("content_block");
          if (b.isObject()) {
            blocks.put(e.path("index").asInt(), (ObjectNode) b.deepCopy());
          }
        }
        case "content_block_delta" -> {
          int index = e.path("index").asInt();
          ObjectNode b = blocks.get(index);
          JsonNode d = e.path("delta");
          if (b == null) {
            throw new IllegalStateException("a delta for block " + index + " that never started");
          }
          switch (d.path("type").asText()) {
            case "text_delta" -> b.put("text", b.path("text").asText() + d.path("text").asText());
            case "thinking_delta" ->
                b.put("thinking", b.path("thinking").asText() + d.path("thinking").asText());
            case "signature_delta" -> b.put("signature", d.path("signature").asText());
            case "input_json_delta" ->
                json.computeIfAbsent(index, k -> new StringBuilder())
                    .append(d.path("partial_json").asText());
            default -> {
              // another delta kind (citations, compaction): the block is kept as it started
            }
          }
        }
        case "content_block_stop" -> {
          int index = e.path("index").asInt();
          StringBuilder sb = json.remove(index);
          ObjectNode b = blocks.get(index);
          if (b != null && sb != null && sb.length() > 0) {
            JsonNode input = Json.tryParse(sb.toString());
            if (input == null) {
              throw new IllegalStateException("tool input of block " + index + " is not JSON");
            }
            b.set("input", input);
          }
        }
        default -> {
          // message_delta, message_stop, ping, error: nothing of the content
        }
      }
    }

    @Override
    JsonNode build() {
      if (!started) {
        return null;
      }
      ObjectNode m = Json.object().put("role", "assistant");
      ArrayNode content = m.putArray("content");
      List<ObjectNode> in = new ArrayList<>(blocks.values());
      in.forEach(content::add);
      return m;
    }
  }

  /**
   * Responses events: the reply is the {@code output} of the closing {@code response.completed} (or
   * {@code response.incomplete}) event, else the items of the {@code response.output_item.done}
   * events in their output order; none after {@code response.failed} or an {@code error} event (a
   * failed answer is not one the client will echo).
   */
  static final class Responses extends StreamReply {
    private final TreeMap<Integer, JsonNode> done = new TreeMap<>();
    private JsonNode output;
    private boolean started;
    private boolean failedAnswer;

    @Override
    void event(JsonNode e) {
      switch (e.path("type").asText()) {
        case "response.created" -> started = true;
        case "response.output_item.done" -> {
          JsonNode item = e.path("item");
          if (item.isObject()) {
            done.put(e.path("output_index").asInt(done.size()), item);
          }
        }
        case "response.completed", "response.incomplete" -> {
          finished = true;
          JsonNode o = e.path("response").path("output");
          if (o.isArray() && !o.isEmpty()) {
            output = o;
          }
        }
        case "response.failed" -> {
          finished = true;
          failedAnswer = true;
        }
        case "error" -> failedAnswer = true;
        default -> {
          // deltas, in-progress and unknown events: the done items say it all
        }
      }
    }

    @Override
    JsonNode build() {
      if (!started || failedAnswer) {
        return null;
      }
      if (output != null) {
        return output;
      }
      if (done.isEmpty()) {
        return null;
      }
      ArrayNode a = Json.array();
      done.values().forEach(a::add);
      return a;
    }
  }
}
