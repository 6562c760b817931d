package dev.compactor.testkit.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.compactor.core.Bounds;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * A model provider stand-in: a real HTTP server on 127.0.0.1 (an ephemeral port) that speaks the
 * OpenAI Chat Completions, OpenAI Responses and Anthropic Messages wire formats ({@link
 * WireFormat}), answers with scripted {@link Reply replies}, records every request, and refuses
 * requests the way the providers do.
 *
 * <p><b>Replies.</b> Each request takes the next {@linkplain #enqueue enqueued} reply; when none is
 * left, the {@linkplain #replyWith handler} decides; without a handler the server answers HTTP 500
 * {@code no reply scripted}. An answer is rendered in the format of the request's path ({@code
 * …/chat/completions}, {@code …/responses}, {@code …/messages}), as a JSON body or, for {@code
 * "stream": true}, as that format's event stream (Chat Completions chunks ending in {@code [DONE]}
 * with a usage chunk whose {@code choices} is empty; Responses typed events with {@code
 * sequence_number}, ending in {@code response.completed}; Anthropic {@code message_start} … {@code
 * message_stop}). {@code POST …/messages/count_tokens} answers {@code {"input_tokens": N}} with the
 * server's estimate.
 *
 * <p><b>Validation</b> (on by default), before any scripted reply is used, with the provider's own
 * HTTP 400 error body:
 *
 * <ul>
 *   <li>tool pairing: every tool result answers a call made earlier and not yet answered; every
 *       assistant tool call is answered before the next user or assistant turn (Anthropic: in the
 *       very next message), including at the end of the conversation;
 *   <li>roles: the format's roles only; Anthropic turns start with {@code user}, and a {@code
 *       system} role inside {@code messages} is refused (it belongs in {@code system}); consecutive
 *       Anthropic turns of one role are accepted, as the Messages API combines them into one turn
 *       (its tool results must still be in the message right after the call);
 *   <li>required fields: {@code model}, a non-empty conversation, Anthropic's {@code max_tokens};
 *       the fields of Responses input items ({@code function_call}: {@code call_id}, {@code name},
 *       {@code arguments}; {@code function_call_output}: {@code call_id}, {@code output}; {@code
 *       message}: {@code role}, {@code content}; {@code computer_call} and {@code
 *       local_shell_call}: {@code call_id}, {@code action}; {@code computer_call_output}: {@code
 *       call_id} and a screenshot object as its {@code output} ({@code {"type":
 *       "computer_screenshot"}} with an {@code image_url} or a {@code file_id}); {@code
 *       local_shell_call_output}: its call's {@code id} (or {@code call_id}) as {@code id}, a
 *       string {@code output}; {@code custom_tool_call}: {@code call_id}, {@code name}, {@code
 *       input}), the calls of those kinds paired with their outputs as function calls are, each
 *       output of its call's own kind ({@code function_call_output} answers no {@code
 *       computer_call}), and a Responses {@code reasoning} item followed by the item it came with
 *       (an assistant message or a call), as OpenAI requires;
 *   <li>at most {@value RequestValidator#MAX_CACHE_CONTROL} Anthropic {@code cache_control}
 *       breakpoints;
 *   <li>size: with a {@linkplain Builder#contextWindow context window}, a request whose estimated
 *       prompt exceeds it gets the provider's context-overflow error.
 * </ul>
 *
 * A refused request is recorded with its {@link RecordedRequest#rejection() rejection} and consumes
 * no reply. {@link #rejections()} lists them, so a test can assert that a client never sent
 * anything a provider would refuse.
 *
 * <p>Thread-safe: requests are served concurrently; {@link #requests()} is in arrival order.
 *
 * <pre>{@code
 * try (FakeModelServer server = FakeModelServer.builder().contextWindow(8_192).start()) {
 *   server.enqueue(Reply.text("Hello!").usage(12, 3));
 *   ChatModel model = ChatModels.create("openai/gpt-4o",
 *       ChatModelOptions.builder().apiKey("sk-test").baseUrl(server.baseUrl()).build());
 *   model.chat(ChatRequest.of(List.of(Message.user("Hi"))));
 *   assertThat(server.lastRequest().lastUserText()).isEqualTo("Hi");
 *   assertThat(server.rejections()).isEmpty();
 * }
 * }</pre>
 */
public final class FakeModelServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  static {
    // The JDK server writes a response's headers and body separately; without TCP_NODELAY, Nagle's
    // algorithm holds the body until the client's delayed ACK, about 40 ms per request on Linux,
    // which no real provider adds. The JDK reads the property once, when its first server starts.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  private final ConcurrentLinkedDeque<Reply> replies = new ConcurrentLinkedDeque<>();
  private final List<RecordedRequest> requests = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger ids = new AtomicInteger();
  private final boolean validate;
  private final ToLongFunction<String> tokenCounter;
  private volatile long contextWindow;
  private volatile Function<RecordedRequest, Reply> handler;

  private FakeModelServer(Builder b) throws IOException {
    this.validate = b.validate;
    this.tokenCounter = b.tokenCounter;
    this.contextWindow = b.contextWindow;
    this.handler = b.handler;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    executor =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "fake-model-server");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** A server with validation on, no context window and no handler. */
  public static FakeModelServer start() {
    return builder().start();
  }

  /** A builder for a server with other settings. */
  public static Builder builder() {
    return new Builder();
  }

  // ------------------------------------------------------------------ addresses

  /** {@code http://127.0.0.1:<port>}, the server's root. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** {@code http://127.0.0.1:<port>/v1}: the base URL the clients append their paths to. */
  public String baseUrl() {
    return url() + "/v1";
  }

  /** The port the server listens on. */
  public int port() {
    return server.getAddress().getPort();
  }

  // ------------------------------------------------------------------ script

  /** Queues replies; requests take them in order. */
  public FakeModelServer enqueue(Reply... replies) {
    this.replies.addAll(Arrays.asList(replies));
    return this;
  }

  /** Answers the requests that find no enqueued reply (null: none, HTTP 500). */
  public FakeModelServer replyWith(Function<RecordedRequest, Reply> handler) {
    this.handler = handler;
    return this;
  }

  /** Changes the context window (tokens, 0 for none). */
  public FakeModelServer contextWindow(long tokens) {
    Bounds.atLeast(0, tokens, "contextWindow");
    this.contextWindow = tokens;
    return this;
  }

  /** Replies enqueued and not yet used. */
  public int pendingReplies() {
    return replies.size();
  }

  // ------------------------------------------------------------------ recording

  /** Every request received, in arrival order (refused ones included). */
  public List<RecordedRequest> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** The requests of one wire format. */
  public List<RecordedRequest> requests(WireFormat format) {
    return requests().stream().filter(r -> r.format() == format).toList();
  }

  /** The last request received. */
  public RecordedRequest lastRequest() {
    List<RecordedRequest> all = requests();
    if (all.isEmpty()) {
      throw new IllegalStateException("the server has received no request");
    }
    return all.get(all.size() - 1);
  }

  /** The requests the server refused as the provider would. */
  public List<RecordedRequest> rejections() {
    return requests().stream().filter(RecordedRequest::rejected).toList();
  }

  /** Forgets recorded requests and queued replies. */
  public FakeModelServer reset() {
    requests.clear();
    replies.clear();
    return this;
  }

  /**
   * The server's estimate of a request's prompt tokens: the {@linkplain Builder#tokenCounter
   * counter} applied to the text of its system prompt, conversation and tools (every string value,
   * each followed by a line break, except roles, types and ids).
   */
  public long estimatePromptTokens(JsonNode body) {
    StringBuilder text = new StringBuilder();
    for (String field : List.of("system", "instructions", "messages", "input", "tools")) {
      appendText(body.path(field), text);
    }
    return tokenCounter.applyAsLong(text.toString());
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  // ------------------------------------------------------------------ serving

  private void handle(HttpExchange ex) {
    try {
      serve(ex);
    } catch (IOException e) {
      // the client went away: nothing more to send
    } catch (RuntimeException e) {
      // a fault of the server itself: say so, when the answer has not begun
      if (ex.getResponseCode() == -1) {
        try {
          send(ex, 500, errorJson("the fake model server failed: " + e), Map.of());
        } catch (IOException | RuntimeException ignored) {
          // the client went away meanwhile
        }
      }
    } finally {
      ex.close();
    }
  }

  private void serve(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    Map<String, String> headers = new LinkedHashMap<>();
    ex.getRequestHeaders()
        .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.isEmpty() ? "" : v.get(0)));
    String path = ex.getRequestURI().getPath();
    boolean countTokens = path.endsWith("/messages/count_tokens");
    WireFormat format =
        countTokens ? WireFormat.ANTHROPIC_MESSAGES : WireFormat.ofPath(path).orElse(null);
    JsonNode json = parse(body);
    String model = json.path("model").asText("unknown");
    long prompt = estimatePromptTokens(json);

    Optional<RequestValidator.Rejection> rejection = Optional.empty();
    if (format != null && validate && !countTokens) {
      rejection = RequestValidator.validate(format, json);
    }
    long window = contextWindow;
    boolean overflow = rejection.isEmpty() && format != null && window > 0 && prompt > window;
    String refused =
        rejection
            .map(RequestValidator.Rejection::message)
            .orElse(overflow ? "context window exceeded" : null);
    RecordedRequest recorded =
        new RecordedRequest(ex.getRequestMethod(), path, headers, body, format, refused);
    requests.add(recorded);

    if (rejection.isPresent()) {
      RequestValidator.Rejection r = rejection.get();
      send(
          ex,
          400,
          Renderer.error(
                  format,
                  Reply.Error.INVALID_REQUEST,
                  r.message(),
                  r.param(),
                  model,
                  prompt,
                  window)
              .toString(),
          Map.of());
      return;
    }
    if (countTokens) {
      send(ex, 200, JSON.createObjectNode().put("input_tokens", prompt).toString(), Map.of());
      return;
    }
    if (overflow) {
      respond(ex, format, Reply.contextLengthExceeded(), recorded, json, model, prompt, window);
      return;
    }
    Reply reply = replies.poll();
    if (reply == null) {
      Function<RecordedRequest, Reply> h = handler;
      try {
        reply = h == null ? null : h.apply(recorded);
      } catch (RuntimeException e) {
        send(ex, 500, errorJson("the reply handler failed: " + e), Map.of());
        return;
      }
    }
    if (reply == null) {
      send(
          ex,
          500,
          errorJson("no reply scripted for " + ex.getRequestMethod() + " " + path),
          Map.of());
      return;
    }
    respond(ex, format, reply, recorded, json, model, prompt, window);
  }

  private void respond(
      HttpExchange ex,
      WireFormat format,
      Reply reply,
      RecordedRequest recorded,
      JsonNode json,
      String model,
      long prompt,
      long window)
      throws IOException {
    sleep(reply);
    switch (reply.kind) {
      case RAW -> send(ex, reply.status, reply.rawBody, reply.headers);
      case RAW_STREAM -> sendEvents(ex, reply.rawEvents, reply.headers);
      case ERROR -> {
        WireFormat f = format == null ? WireFormat.CHAT_COMPLETIONS : format;
        ObjectNode error =
            Renderer.error(f, reply.error, reply.errorMessage, null, model, prompt, window);
        if (reply.inStream && recorded.streaming()) {
          sendEvents(ex, Renderer.streamError(f, error).events(), reply.headers);
        } else {
          send(ex, Renderer.status(f, reply.error), error.toString(), reply.headers);
        }
      }
      case ANSWER -> {
        if (format == null) {
          send(ex, 404, errorJson("unknown path " + recorded.path()), Map.of());
          return;
        }
        long output = reply.outputTokens != null ? reply.outputTokens : estimateAnswer(reply);
        long input =
            reply.inputTokens != null
                ? reply.inputTokens
                : Math.max(1, prompt - reply.cacheReadTokens);
        Renderer.Counts counts =
            new Renderer.Counts(input, output, reply.cacheReadTokens, reply.cacheWriteTokens);
        Renderer.Rendered r =
            Renderer.answer(
                format, reply, model, ids.incrementAndGet(), counts, recorded.streaming());
        if (r.events() != null) {
          sendEvents(ex, r.events(), reply.headers);
        } else {
          send(ex, r.status(), r.body(), reply.headers);
        }
      }
    }
  }

  private long estimateAnswer(Reply r) {
    StringBuilder sb = new StringBuilder(r.text).append(r.reasoning);
    r.toolCalls.forEach(c -> sb.append(c.name()).append(c.arguments()));
    return Math.max(1, tokenCounter.applyAsLong(sb.toString()));
  }

  private static void sleep(Reply r) {
    if (!r.delay.isZero()) {
      try {
        Thread.sleep(r.delay.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void send(HttpExchange ex, int status, String body, Map<String, String> headers)
      throws IOException {
    headers.forEach((k, v) -> ex.getResponseHeaders().add(k, v));
    if (!ex.getResponseHeaders().containsKey("Content-Type")) {
      ex.getResponseHeaders().add("Content-Type", "application/json");
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  private static void sendEvents(HttpExchange ex, List<String> events, Map<String, String> headers)
      throws IOException {
    headers.forEach((k, v) -> ex.getResponseHeaders().add(k, v));
    if (!ex.getResponseHeaders().containsKey("Content-Type")) {
      ex.getResponseHeaders().add("Content-Type", "text/event-stream");
    }
    ex.sendResponseHeaders(200, 0);
    try (OutputStream out = ex.getResponseBody()) {
      for (String e : events) {
        out.write((e + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    }
  }

  private static String errorJson(String message) {
    ObjectNode o = JSON.createObjectNode();
    o.putObject("error").put("message", message).put("type", "server_error");
    return o.toString();
  }

  private static JsonNode parse(String body) {
    try {
      JsonNode n = JSON.readTree(body);
      return n == null ? JSON.missingNode() : n;
    } catch (IOException e) {
      return JSON.missingNode();
    }
  }

  /** Field names whose values are structure, not text a model reads. */
  private static final java.util.Set<String> STRUCTURE =
      java.util.Set.of(
          "role", "type", "id", "call_id", "tool_call_id", "tool_use_id", "cache_control");

  private static void appendText(JsonNode node, StringBuilder out) {
    if (node.isTextual()) {
      out.append(node.asText()).append('\n');
    } else if (node.isObject()) {
      node.fields()
          .forEachRemaining(
              e -> {
                if (!STRUCTURE.contains(e.getKey())) {
                  appendText(e.getValue(), out);
                }
              });
    } else {
      for (JsonNode child : node) {
        appendText(child, out);
      }
    }
  }

  /** Builder of {@link FakeModelServer}. */
  public static final class Builder {
    private boolean validate = true;
    private long contextWindow;
    private ToLongFunction<String> tokenCounter = s -> (s.length() + 3) / 4;
    private Function<RecordedRequest, Reply> handler;

    private Builder() {}

    /**
     * The context window in tokens: a request whose estimated prompt is larger gets the provider's
     * overflow error (default 0: no limit).
     */
    public Builder contextWindow(long tokens) {
      Bounds.atLeast(0, tokens, "contextWindow");
      this.contextWindow = tokens;
      return this;
    }

    /**
     * How text is counted in tokens for the context window, {@code count_tokens} and default usage
     * (default: characters / 4, rounded up).
     */
    public Builder tokenCounter(ToLongFunction<String> counter) {
      this.tokenCounter = Objects.requireNonNull(counter, "counter");
      return this;
    }

    /**
     * Whether requests are validated as the providers do (default true). Switch it off only to test
     * what a client does with a reply to a request a provider would refuse.
     */
    public Builder validateRequests(boolean validate) {
      this.validate = validate;
      return this;
    }

    /** The handler for requests that find no enqueued reply. */
    public Builder replyWith(Function<RecordedRequest, Reply> handler) {
      this.handler = handler;
      return this;
    }

    /** Starts the server. */
    public FakeModelServer start() {
      try {
        return new FakeModelServer(this);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start the fake model server on 127.0.0.1", e);
      }
    }
  }
}
