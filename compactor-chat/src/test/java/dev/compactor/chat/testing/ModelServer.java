package dev.compactor.chat.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.compactor.chat.ChatModelFactory;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.RetryPolicy;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A model provider on 127.0.0.1 (port 0) speaking the OpenAI Responses ({@code /v1/responses}) and
 * Chat Completions ({@code /v1/chat/completions}) wire formats. By default it answers summary
 * requests with {@code "SUMMARY of N messages"} and other requests with {@code "echo: <last user
 * text>"}, reporting 100 + 10 per input item prompt tokens and 5 completion tokens; tests replace
 * the behaviour with {@link #handler}. Every request is recorded.
 */
public final class ModelServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** A request as received. */
  public record Call(String path, JsonNode body) {
    public boolean responsesApi() {
      return path.endsWith("/responses");
    }

    /** Whether this is a summarization request (its input holds the summarizer's transcript). */
    public boolean isSummary() {
      return body.toString().contains("Summarize this conversation excerpt");
    }

    /** The messages or input items sent. */
    public JsonNode items() {
      return responsesApi() ? body.path("input") : body.path("messages");
    }

    /** The text of the last user message or input item. */
    public String lastUserText() {
      String last = null;
      for (JsonNode i : items()) {
        if ("user".equals(i.path("role").asText())) {
          last = i.path("content").asText();
        }
      }
      return last;
    }

    /** Texts of every message item sent, role-prefixed ({@code "user: hi"}). */
    public List<String> texts() {
      List<String> out = new ArrayList<>();
      if (responsesApi() && body.has("instructions")) {
        out.add("system: " + body.get("instructions").asText());
      }
      for (JsonNode i : items()) {
        if (i.has("role")) {
          out.add(i.get("role").asText() + ": " + i.path("content").asText());
        } else {
          out.add(i.path("type").asText() + ": " + i.path("call_id").asText());
        }
      }
      return out;
    }
  }

  /** A scripted answer. */
  public static final class Reply {
    int status = 200;
    String rawBody;
    String text = "";
    long inputTokens = 100;
    long outputTokens = 5;
    boolean compacted;
    final List<String[]> toolCalls = new ArrayList<>();

    public static Reply text(String text) {
      Reply r = new Reply();
      r.text = text;
      return r;
    }

    public static Reply error(int status, String body) {
      Reply r = new Reply();
      r.status = status;
      r.rawBody = body;
      return r;
    }

    public Reply usage(long input, long output) {
      this.inputTokens = input;
      this.outputTokens = output;
      return this;
    }

    /** Adds a compaction item to the output (Responses only). */
    public Reply compacted() {
      this.compacted = true;
      return this;
    }

    public Reply toolCall(String id, String name, String arguments) {
      toolCalls.add(new String[] {id, name, arguments});
      return this;
    }
  }

  private final HttpServer server;
  private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger ids = new AtomicInteger();
  private volatile Function<Call, Reply> handler = ModelServer::defaultReply;

  private ModelServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  public static ModelServer start() {
    try {
      return new ModelServer();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public static Reply defaultReply(Call c) {
    if (c.isSummary()) {
      int n = c.body().toString().split("\\[\\d+\\] ").length - 1;
      return Reply.text("SUMMARY of " + n + " messages").usage(300, 40);
    }
    return Reply.text("echo: " + c.lastUserText()).usage(100 + 10L * c.items().size(), 5);
  }

  /** {@code http://127.0.0.1:port/v1}. */
  public String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
  }

  public ModelServer handler(Function<Call, Reply> handler) {
    this.handler = handler;
    return this;
  }

  public List<Call> calls() {
    synchronized (calls) {
      return List.copyOf(calls);
    }
  }

  public List<Call> summaryCalls() {
    return calls().stream().filter(Call::isSummary).toList();
  }

  public List<Call> chatCalls() {
    return calls().stream().filter(c -> !c.isSummary()).toList();
  }

  public Call lastChatCall() {
    List<Call> c = chatCalls();
    return c.get(c.size() - 1);
  }

  /** Options for clients of this server: test key, no environment, no retries. */
  public ChatModelOptions options() {
    return ChatModelOptions.builder()
        .env(Map.of())
        .apiKey("sk-test-key")
        .baseUrl(baseUrl())
        .retryPolicy(RetryPolicy.none())
        .requestTimeout(Duration.ofSeconds(30))
        .build();
  }

  /** The standard factory against this server. */
  public ChatModelFactory models() {
    return ChatModelFactory.standard(options());
  }

  private void handle(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    Call call = new Call(ex.getRequestURI().getPath(), JSON.readTree(body));
    calls.add(call);
    Reply r;
    try {
      r = handler.apply(call);
    } catch (RuntimeException e) {
      r = Reply.error(500, "{\"error\":{\"message\":\"handler failed: " + e + "\"}}");
    }
    String out = r.rawBody != null ? r.rawBody : render(call, r);
    byte[] bytes = out.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().add("Content-Type", "application/json");
    ex.sendResponseHeaders(r.status, bytes.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(bytes);
    }
  }

  private String render(Call call, Reply r) {
    int id = ids.incrementAndGet();
    ObjectNode o = JSON.createObjectNode();
    if (call.responsesApi()) {
      o.put("id", "resp_" + id).put("object", "response").put("status", "completed");
      o.put("model", call.body().path("model").asText());
      ArrayNode output = o.putArray("output");
      if (r.compacted) {
        output
            .addObject()
            .put("id", "cmp_" + id)
            .put("type", "compaction")
            .put("encrypted_content", "gAAAA-compacted-" + id);
      }
      if (!r.text.isEmpty()) {
        ObjectNode msg =
            output
                .addObject()
                .put("id", "msg_" + id)
                .put("type", "message")
                .put("role", "assistant");
        msg.put("status", "completed");
        msg.putArray("content").addObject().put("type", "output_text").put("text", r.text);
      }
      for (String[] c : r.toolCalls) {
        output
            .addObject()
            .put("type", "function_call")
            .put("call_id", c[0])
            .put("name", c[1])
            .put("arguments", c[2]);
      }
      ObjectNode u = o.putObject("usage");
      u.put("input_tokens", r.inputTokens);
      u.putObject("input_tokens_details").put("cached_tokens", 0);
      u.put("output_tokens", r.outputTokens);
      u.putObject("output_tokens_details").put("reasoning_tokens", 0);
      u.put("total_tokens", r.inputTokens + r.outputTokens);
    } else {
      o.put("id", "chatcmpl-" + id).put("object", "chat.completion");
      o.put("model", call.body().path("model").asText());
      ObjectNode choice = o.putArray("choices").addObject();
      choice.put("index", 0);
      ObjectNode msg = choice.putObject("message").put("role", "assistant").put("content", r.text);
      if (!r.toolCalls.isEmpty()) {
        ArrayNode tc = msg.putArray("tool_calls");
        for (String[] c : r.toolCalls) {
          ObjectNode t = tc.addObject().put("id", c[0]).put("type", "function");
          t.putObject("function").put("name", c[1]).put("arguments", c[2]);
        }
      }
      choice.put("finish_reason", r.toolCalls.isEmpty() ? "stop" : "tool_calls");
      o.putObject("usage")
          .put("prompt_tokens", r.inputTokens)
          .put("completion_tokens", r.outputTokens)
          .put("total_tokens", r.inputTokens + r.outputTokens);
    }
    return o.toString();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
