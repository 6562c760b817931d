package dev.compactor.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.RetryPolicy;
import dev.compactor.server.proxy.ProxyStore;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * A real server on port 0 over a store, with its model calls going to a {@link FakeModelServer}
 * configured as the {@code openai} upstream (and as an OpenAI-compatible upstream named {@code
 * fake}); its metrics, with the model clients timed; an HTTP client to call it.
 */
final class ServerFixture implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String KEY_ENV = "TEST_UPSTREAM_KEY";

  final FakeModelServer model =
      FakeModelServer.builder().replyWith(ServerFixture::defaultReply).start();
  final ChatStore store;
  final ServerMetrics metrics = new ServerMetrics();
  final CompactorServer server;
  final ProxyStore proxyStore;
  final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final HttpClient http = HttpClient.newHttpClient();

  ServerFixture(ChatStore store, Tenants tenants) {
    this(store, tenants, ServerSettings.builder().port(0));
  }

  ServerFixture(ChatStore store, Tenants tenants, ServerSettings.Builder settings) {
    this(store, tenants, settings, Duration.ofSeconds(2));
  }

  /** With another model-call timeout (the default is 2 s, for the timeout tests). */
  ServerFixture(
      ChatStore store, Tenants tenants, ServerSettings.Builder settings, Duration modelTimeout) {
    this(store, tenants, settings, modelTimeout, null);
  }

  /** With the proxy's routes on {@code proxyStore} (closed with the fixture), or none for null. */
  ServerFixture(
      ChatStore store,
      Tenants tenants,
      ServerSettings.Builder settings,
      Duration modelTimeout,
      ProxyStore proxyStore) {
    this.store = store;
    this.proxyStore = proxyStore;
    ServerSettings s =
        settings
            .upstream(new Upstream("openai", model.baseUrl(), KEY_ENV))
            .upstream(new Upstream("fake", model.baseUrl(), KEY_ENV))
            .build();
    ChatModelOptions options =
        ChatModelOptions.builder().retryPolicy(RetryPolicy.none()).timeout(modelTimeout).build();
    ChatTaskService service =
        ChatTaskService.builder(store)
            .models(
                metrics.models(
                    new UpstreamModels(s.upstreams(), options, Map.of(KEY_ENV, "sk-upstream"))))
            .build();
    server =
        CompactorServer.start(
            s,
            service,
            tenants,
            new PrintStream(logBytes, true, StandardCharsets.UTF_8),
            metrics,
            proxyStore,
            Map.of(KEY_ENV, "sk-upstream"));
  }

  static Reply defaultReply(RecordedRequest c) {
    if (c.body().contains("Summarize this conversation excerpt")) {
      return Reply.text("SUMMARY").usage(300, 40);
    }
    return Reply.text("echo: " + c.lastUserText()).usage(100 + 10L * c.items().size(), 5);
  }

  String log() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }

  /** A response: status, parsed body (null when not JSON) and raw text. */
  record Answer(int status, JsonNode json, String text, HttpResponse<String> raw) {
    String code() {
      return json == null ? null : json.path("error").path("code").asText(null);
    }
  }

  Answer send(String method, String path, String body, String key) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (key != null) {
      b.header("Authorization", "Bearer " + key);
    }
    return send(b.build());
  }

  Answer send(HttpRequest request) {
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      if (r.headers().firstValue("Content-Type").orElse("").startsWith("application/json")) {
        json = JSON.readTree(r.body());
      }
      return new Answer(r.statusCode(), json, r.body(), r);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Answer get(String path, String key) {
    return send("GET", path, null, key);
  }

  Answer post(String path, String body, String key) {
    return send("POST", path, body, key);
  }

  static String userCall(String model, String text) {
    return "{\"model\": \""
        + model
        + "\", \"messages\": [{\"role\": \"user\", \"content\": \""
        + text
        + "\"}]}";
  }

  @Override
  public void close() {
    server.close();
    if (proxyStore != null) {
      proxyStore.close();
    }
    store.close();
    model.close();
  }
}
