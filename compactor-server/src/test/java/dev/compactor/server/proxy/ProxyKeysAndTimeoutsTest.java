package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.TestTenants;
import dev.compactor.server.proxy.ProxyFixture.Answer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy with tenant keys (the tenant's key authenticates to this server and is never sent on;
 * the upstream gets its configured key), and an upstream slower than the server's idle timeout.
 */
class ProxyKeysAndTimeoutsTest {
  static final String ACME = "key-acme-0123456789abcdef";

  @TempDir Path dir;

  @Test
  void withTenantKeysTheProxyAuthenticatesTheTenantAndSendsTheUpstreamKey() {
    try (ProxyFixture f =
        new ProxyFixture(
            ProxyContract.fakeModel(),
            ProxyStore.openSqlite(dir.resolve("proxy.db")),
            dir,
            TestTenants.keys(Map.of(ACME, "acme")))) {
      String chat = ProxyContract.chat("gpt-4o", "user", "hi").toString();
      Answer a = f.post("/v1/chat/completions", chat, "Authorization", "Bearer " + ACME);
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      RecordedRequest sent = f.model.lastRequest();
      assertThat(sent.header("authorization")).hasValue("Bearer " + ProxyFixture.UPSTREAM_KEY);
      assertThat(sent.headers().toString()).doesNotContain(ACME);
      // the conversation is the tenant's
      String conv = a.header(ProxyRoutes.CONVERSATION);
      assertThat(f.proxyStore.byId("acme", conv)).isPresent();
      assertThat(f.proxyStore.byId("default", conv)).isEmpty();

      // Anthropic clients send the key as x-api-key: accepted, replaced by the upstream's
      String msg =
          ProxyContract.chat("claude-sonnet-4-5", "user", "hi").put("max_tokens", 10).toString();
      Answer b = f.post("/v1/messages", msg, "x-api-key", ACME, "anthropic-version", "2023-06-01");
      assertThat(b.status()).as(b.body()).isEqualTo(200);
      assertThat(f.model.lastRequest().header("x-api-key")).hasValue(ProxyFixture.UPSTREAM_KEY);
      assertThat(f.model.lastRequest().header("authorization")).isEmpty();

      // no key, or an unknown one: 401 from this server, nothing sent upstream
      int before = f.model.requests().size();
      assertThat(f.post("/v1/chat/completions", chat).status()).isEqualTo(401);
      assertThat(f.post("/v1/messages", msg, "x-api-key", "wrong").status()).isEqualTo(401);
      assertThat(f.post("/u/local/v1/chat/completions", chat).status()).isEqualTo(401);
      assertThat(f.model.requests()).hasSize(before);
      assertThat(f.log()).doesNotContain(ACME).doesNotContain(ProxyFixture.UPSTREAM_KEY);
    }
  }

  @Test
  void anUpstreamSlowerThanTheIdleTimeoutStillAnswers() {
    try (ProxyFixture f =
        new ProxyFixture(
            ProxyContract.fakeModel(),
            ProxyStore.openSqlite(dir.resolve("proxy.db")),
            dir,
            Tenants.localMode(),
            ServerSettings.builder().port(0).idleTimeout(Duration.ofMillis(500)))) {
      f.model.enqueue(Reply.text("slow answer").delay(Duration.ofMillis(1500)));
      Answer a =
          f.post("/v1/chat/completions", ProxyContract.chat("gpt-4o", "user", "hi").toString());
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.json().at("/choices/0/message/content").asText()).isEqualTo("slow answer");
    }
  }
}
