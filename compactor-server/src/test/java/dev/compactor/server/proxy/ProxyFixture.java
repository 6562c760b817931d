package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.SqliteChatStore;
import dev.compactor.server.CompactorServer;
import dev.compactor.server.ProxySettings;
import dev.compactor.server.ServerMetrics;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.Upstream;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A real server on 127.0.0.1 port 0 with the proxy on, its {@code openai} and {@code anthropic}
 * upstreams (and one named {@code local}) pointing at a {@link FakeModelServer}; an HTTP client.
 */
final class ProxyFixture implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String UPSTREAM_KEY_ENV = "TEST_PROXY_UPSTREAM_KEY";
  static final String UPSTREAM_KEY = "sk-upstream-configured";

  final FakeModelServer model;
  final ProxyStore proxyStore;
  final ChatStore chats;
  final CompactorServer server;
  final ServerMetrics metrics = new ServerMetrics();
  final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final HttpClient http = HttpClient.newHttpClient();

  /**
   * In local mode (clients send their own keys), with the proxy's store in SQLite in {@code dir}.
   */
  static ProxyFixture localOnSqlite(FakeModelServer model, Path dir) {
    return new ProxyFixture(
        model, ProxyStore.openSqlite(dir.resolve("proxy.db")), dir, Tenants.localMode());
  }

  ProxyFixture(FakeModelServer model, ProxyStore proxyStore, Path dir, Tenants tenants) {
    this(model, proxyStore, dir, tenants, ServerSettings.builder().port(0));
  }

  ProxyFixture(
      FakeModelServer model,
      ProxyStore proxyStore,
      Path dir,
      Tenants tenants,
      ServerSettings.Builder settings) {
    this(model, proxyStore, dir, tenants, settings, Map.of());
  }

  /**
   * With proxy policies for some of the upstreams ({@code openai}, {@code anthropic}, {@code
   * local}).
   */
  ProxyFixture(
      FakeModelServer model,
      ProxyStore proxyStore,
      Path dir,
      Tenants tenants,
      ServerSettings.Builder settings,
      Map<String, ProxySettings> policies) {
    this.model = model;
    this.proxyStore = proxyStore;
    this.chats = SqliteChatStore.open(dir.resolve("chats.db"));
    ServerSettings s =
        settings
            .upstream(
                new Upstream("openai", model.baseUrl(), UPSTREAM_KEY_ENV, policies.get("openai")))
            .upstream(
                new Upstream(
                    "anthropic", model.baseUrl(), UPSTREAM_KEY_ENV, policies.get("anthropic")))
            .upstream(new Upstream("local", model.baseUrl(), null, policies.get("local")))
            .build();
    server =
        CompactorServer.start(
            s,
            ChatTaskService.builder(chats).build(),
            tenants,
            new PrintStream(logBytes, true, StandardCharsets.UTF_8),
            metrics,
            proxyStore,
            Map.of(UPSTREAM_KEY_ENV, UPSTREAM_KEY));
  }

  String log() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }

  String baseUrl() {
    return server.baseUrl();
  }

  /** A response with its body as text. */
  record Answer(HttpResponse<String> raw) {
    int status() {
      return raw.statusCode();
    }

    String header(String name) {
      return raw.headers().firstValue(name).orElse(null);
    }

    String body() {
      return raw.body();
    }

    JsonNode json() {
      try {
        return JSON.readTree(raw.body());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /**
   * How long a test request may take: a safety net against a hung server, not a speed check; long
   * because a 12 MB conversation on a loaded machine takes tens of seconds.
   */
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(180);

  /** POSTs {@code body} to {@code path} with header pairs {@code name, value, …}. */
  Answer post(String path, String body, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
            .timeout(CLIENT_TIMEOUT)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json");
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return send(b.build());
  }

  /**
   * POSTs {@code body} to {@code path} with the client's own key {@code sk-client-own} and checks
   * that the proxy forwarded it byte for byte to the same path with that key and changed nothing
   * ({@code x-compactor-action: none}), in a new conversation whose tokens it counted, the fake
   * provider rejecting nothing.
   */
  Answer postForwardedUnchanged(String path, String body) {
    Answer a = post(path, body, "Authorization", "Bearer sk-client-own");
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    RecordedRequest sent = model.lastRequest();
    assertThat(sent.body()).isEqualTo(body);
    assertThat(sent.path()).isEqualTo(path);
    assertThat(sent.header("authorization")).hasValue("Bearer sk-client-own");
    assertThat(a.header("x-compactor-action")).isEqualTo("none");
    assertThat(a.header("x-compactor-conversation")).startsWith("conv_");
    assertThat(Long.parseLong(a.header("x-compactor-tokens-before"))).isPositive();
    assertThat(model.rejections()).isEmpty();
    return a;
  }

  Answer get(String path, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path)).timeout(CLIENT_TIMEOUT).GET();
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return send(b.build());
  }

  Answer delete(String path, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
            .timeout(CLIENT_TIMEOUT)
            .DELETE();
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return send(b.build());
  }

  Answer send(HttpRequest r) {
    try {
      return new Answer(http.send(r, HttpResponse.BodyHandlers.ofString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    server.close();
    proxyStore.close();
    chats.close();
    model.close();
  }
}
