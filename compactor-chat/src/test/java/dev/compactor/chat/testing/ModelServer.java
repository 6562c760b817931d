package dev.compactor.chat.testing;

import dev.compactor.chat.ChatModelFactory;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.RetryPolicy;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The chat tests' model provider: a {@link FakeModelServer} (which validates every request as the
 * providers do) whose default handler answers summary requests with {@code "SUMMARY of N messages"}
 * and other requests with {@code "echo: <last user text>"}, reporting 100 + 10 per input item
 * prompt tokens and 5 completion tokens; tests replace the behaviour with {@link #handler}.
 */
public final class ModelServer implements AutoCloseable {
  private final FakeModelServer server =
      FakeModelServer.builder().replyWith(ModelServer::defaultReply).start();

  private ModelServer() {}

  public static ModelServer start() {
    return new ModelServer();
  }

  /** Whether {@code c} is a summarization request (its input holds the summarizer's transcript). */
  public static boolean isSummary(RecordedRequest c) {
    return c.body().contains("Summarize this conversation excerpt");
  }

  public static Reply defaultReply(RecordedRequest c) {
    if (isSummary(c)) {
      int n = c.json().toString().split("\\[\\d+\\] ").length - 1;
      return Reply.text("SUMMARY of " + n + " messages").usage(300, 40);
    }
    return Reply.text("echo: " + c.lastUserText()).usage(100 + 10L * c.items().size(), 5);
  }

  /** {@code http://127.0.0.1:port/v1}. */
  public String baseUrl() {
    return server.baseUrl();
  }

  /** The underlying server. */
  public FakeModelServer fake() {
    return server;
  }

  public ModelServer handler(Function<RecordedRequest, Reply> handler) {
    server.replyWith(handler);
    return this;
  }

  public List<RecordedRequest> calls() {
    return server.requests();
  }

  public List<RecordedRequest> summaryCalls() {
    return calls().stream().filter(ModelServer::isSummary).toList();
  }

  public List<RecordedRequest> chatCalls() {
    return calls().stream().filter(c -> !isSummary(c)).toList();
  }

  public RecordedRequest lastChatCall() {
    List<RecordedRequest> c = chatCalls();
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

  @Override
  public void close() {
    server.close();
  }
}
