package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.server.ServerFixture.Answer;
import dev.compactor.testkit.model.Reply;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chat-task API over HTTP against a real server on port 0, run on each store: every route, its
 * errors, and tenant isolation (another tenant's chat is 404 on every route).
 */
abstract class ChatApiContract {
  static final String ACME = "key-acme-0123456789abcdef";
  static final String GLOBEX = "key-globex-0123456789abcdef";

  ServerFixture f;

  /** A fresh, empty store. */
  abstract ChatStore openStore();

  @BeforeEach
  void start() {
    f = new ServerFixture(openStore(), ServerFixture.keys(Map.of(ACME, "acme", GLOBEX, "globex")));
  }

  @AfterEach
  void stop() {
    f.close();
  }

  private Answer call(String chat, String text) {
    return f.post(
        "/v1/chats/" + chat + "/calls", ServerFixture.userCall("openai/gpt-5-mini", text), ACME);
  }

  @Test
  void aCallAnswersWithTheMessageUsageAndCompactionReport() {
    Answer a = call("support-1", "Hi");
    assertThat(a.status()).as(a.text()).isEqualTo(200);
    assertThat(a.json().at("/message/content").asText()).isEqualTo("echo: Hi");
    assertThat(a.json().at("/message/role").asText()).isEqualTo("assistant");
    assertThat(a.json().at("/usage/prompt_tokens").asLong()).isPositive();
    assertThat(a.json().at("/_gpt_chat_details/model").asText()).isEqualTo("openai/gpt-5-mini");
    // no compaction settings: no report (docs/chat-tasks.md, "The result")
    assertThat(a.json().at("/_gpt_chat_details").has("compaction")).isFalse();
    assertThat(a.json().at("/tenant").asText()).isEqualTo("acme");
    assertThat(f.model.rejections()).isEmpty();
    // the upstream got the configured key, not the caller's
    assertThat(f.model.lastRequest().header("Authorization")).hasValue("Bearer sk-upstream");
  }

  @Test
  void aNamedOpenAiCompatibleUpstreamServesItsModels() {
    Answer a = f.post("/v1/chats/c/calls", ServerFixture.userCall("fake/qwen3-8b", "Hello"), ACME);
    assertThat(a.status()).as(a.text()).isEqualTo(200);
    assertThat(f.model.lastRequest().path()).endsWith("/chat/completions");
    assertThat(f.model.lastRequest().json().path("model").asText()).isEqualTo("qwen3-8b");
  }

  @Test
  void theChatShowsModelCountersAndSettingsGivenAndEffective() {
    f.post(
        "/v1/chats/s/calls",
        "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\", \"content\":"
            + " \"a\"}], \"compaction\": {\"summary\": {\"activation\": {\"message_count\":"
            + " 60}}}}",
        ACME);
    Answer a = f.get("/v1/chats/s", ACME);
    assertThat(a.status()).as(a.text()).isEqualTo(200);
    assertThat(a.json().path("model").asText()).isEqualTo("openai/gpt-5-mini");
    assertThat(a.json().path("interactions").asInt()).isEqualTo(1);
    assertThat(a.json().path("message_count").asInt()).isEqualTo(2);
    assertThat(a.json().at("/settings/given/summary/activation/message_count").asInt())
        .isEqualTo(60);
    assertThat(a.json().at("/settings/effective").isObject()).isTrue();
    assertThat(a.json().has("messages")).isFalse();
  }

  @Test
  void messagesArePaged() {
    for (int i = 0; i < 3; i++) {
      assertThat(call("p", "m" + i).status()).isEqualTo(200);
    }
    Answer first = f.get("/v1/chats/p/messages?limit=4", ACME);
    assertThat(first.status()).as(first.text()).isEqualTo(200);
    assertThat(first.json().path("total").asInt()).isEqualTo(6);
    assertThat(first.json().path("messages")).hasSize(4);
    assertThat(first.json().at("/messages/0/content").asText()).isEqualTo("m0");
    int next = first.json().path("next_offset").asInt();
    Answer second = f.get("/v1/chats/p/messages?limit=4&offset=" + next, ACME);
    assertThat(second.json().path("messages")).hasSize(2);
    assertThat(second.json().at("/messages/1/content").asText()).isEqualTo("echo: m2");
    assertThat(second.json().path("next_offset").isNull()).isTrue();
    assertThat(f.get("/v1/chats/p/messages?limit=0", ACME).code()).isEqualTo("invalid_request");
    assertThat(f.get("/v1/chats/p/messages?offset=x", ACME).code()).isEqualTo("invalid_request");
  }

  @Test
  void summarizeOnDemandThenListSummaries() {
    for (int i = 0; i < 8; i++) {
      call("sum", "m" + i); // 16 messages: 6 to summarize, the last 10 kept
    }
    Answer s = f.post("/v1/chats/sum/summarize", null, ACME);
    assertThat(s.status()).as(s.text()).isEqualTo(200);
    assertThat(s.json().at("/summary/activated").asBoolean()).as(s.text()).isTrue();
    Answer list = f.get("/v1/chats/sum/summaries", ACME);
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.json().path("summaries")).hasSize(1);
    assertThat(list.json().at("/summaries/0/summary").asText()).isEqualTo("SUMMARY");
  }

  // ------------------------------------------------------------------ errors

  @Test
  void malformedRequestsAre400AndStoreNothing() {
    Answer bad = f.post("/v1/chats/e/calls", "{\"model\": ", ACME);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.code()).isEqualTo("invalid_request");
    Answer unknown =
        f.post("/v1/chats/e/calls", "{\"model\": \"openai/x\", \"mesages\": []}", ACME);
    assertThat(unknown.status()).isEqualTo(400);
    Answer empty = f.post("/v1/chats/e/calls", "", ACME);
    assertThat(empty.status()).isEqualTo(400);
    assertThat(empty.json().at("/error/message").asText()).contains("empty");
    Answer settings =
        f.post(
            "/v1/chats/e/calls",
            "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\", \"content\":"
                + " \"a\"}], \"compaction\": {\"summary\": {\"activation\": {\"message_count\":"
                + " -3}}}}",
            ACME);
    assertThat(settings.status()).isEqualTo(400);
    assertThat(settings.code()).isEqualTo("invalid_settings");
    assertThat(f.get("/v1/chats/e", ACME).status()).isEqualTo(404);
  }

  @Test
  void invalidUtf8IsRefusedNamingTheOffset() {
    byte[] body = "{\"model\": \"openai/x\", \"messages\": [\"\u00e9\"]}".getBytes();
    byte[] broken = java.util.Arrays.copyOf(body, body.length);
    int at = new String(body).indexOf('\u00e9');
    broken[at] = (byte) 0xC3;
    broken[at + 1] = (byte) 0x28;
    Answer a =
        f.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(f.server.baseUrl() + "/v1/chats/u/calls"))
                .header("Authorization", "Bearer " + ACME)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(broken))
                .build());
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().at("/error/message").asText()).contains("byte offset " + at);
  }

  @Test
  void unknownRoutesAndMissingChatsAre404() {
    Answer route = f.get("/v1/nothing", ACME);
    assertThat(route.status()).isEqualTo(404);
    assertThat(route.code()).isEqualTo("not_found");
    Answer chat = f.get("/v1/chats/never", ACME);
    assertThat(chat.status()).isEqualTo(404);
    assertThat(chat.code()).isEqualTo("not_found");
    assertThat(f.post("/v1/chats/never/summarize", null, ACME).status()).isEqualTo(404);
  }

  @Test
  void aTooLongChatIdIs400() {
    Answer a = call("x".repeat(201), "hi");
    assertThat(a.status()).isEqualTo(400);
    assertThat(a.json().at("/error/message").asText()).contains("chat_id");
  }

  @Test
  void aTrippedFailsafeIs422() {
    Answer a =
        f.post(
            "/v1/chats/fs/calls",
            "{\"model\": \"openai/gpt-5-mini\", \"messages\": [{\"role\": \"user\", \"content\":"
                + " \"a\"}, {\"role\": \"user\", \"content\": \"b\"}], \"stop_on_high_messages\":"
                + " 1}",
            ACME);
    assertThat(a.status()).as(a.text()).isEqualTo(422);
    assertThat(a.code()).isEqualTo("failsafe_messages");
    assertThat(f.get("/v1/chats/fs", ACME).status()).isEqualTo(404);
  }

  @Test
  void upstreamFailuresAre502429And504() {
    f.model.replyWith(c -> Reply.raw(500, "{\"error\": {\"message\": \"boom\"}}"));
    Answer failed = call("m", "hi");
    assertThat(failed.status()).as(failed.text()).isEqualTo(502);
    assertThat(failed.code()).isEqualTo("model_error");
    f.model.replyWith(c -> Reply.rateLimited());
    assertThat(call("m", "hi").status()).isEqualTo(429);
    f.model.replyWith(c -> Reply.text("late").delay(Duration.ofSeconds(4)));
    Answer slow = call("m", "hi");
    assertThat(slow.status()).as(slow.text()).isEqualTo(504);
    assertThat(slow.code()).isEqualTo("model_error");
    assertThat(f.get("/v1/chats/m", ACME).status()).isEqualTo(404);
  }

  // ------------------------------------------------------------------ tenants

  @Test
  void requestsWithoutAValidKeyAre401() {
    Answer none = f.get("/v1/chats/x", null);
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.code()).isEqualTo("unauthorized");
    assertThat(none.raw().headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    Answer wrong = f.get("/v1/chats/x", "key-nobody");
    assertThat(wrong.status()).isEqualTo(401);
    assertThat(wrong.text()).doesNotContain("key-nobody");
    Answer basic =
        f.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(f.server.baseUrl() + "/v1/chats/x"))
                .header("Authorization", "Basic Zm9vOmJhcg==")
                .build());
    assertThat(basic.status()).isEqualTo(401);
    assertThat(f.model.requests()).isEmpty();
  }

  @Test
  void anotherTenantsChatIs404OnEveryRoute() {
    assertThat(call("shared-name", "acme's secret").status()).isEqualTo(200);
    String chat = "/v1/chats/shared-name";
    for (Answer a :
        new Answer[] {
          f.get(chat, GLOBEX),
          f.get(chat + "/messages", GLOBEX),
          f.get(chat + "/summaries", GLOBEX),
          f.post(chat + "/summarize", null, GLOBEX)
        }) {
      assertThat(a.status()).as(a.text()).isEqualTo(404);
      assertThat(a.code()).isEqualTo("not_found");
      assertThat(a.text()).doesNotContain("acme");
    }
    // globex's call on the same id is its own chat
    Answer own =
        f.post(chat + "/calls", ServerFixture.userCall("openai/gpt-5-mini", "globex"), GLOBEX);
    assertThat(own.status()).isEqualTo(200);
    JsonNode acme = f.get(chat + "/messages", ACME).json();
    assertThat(acme.path("total").asInt()).isEqualTo(2);
    assertThat(acme.at("/messages/0/content").asText()).isEqualTo("acme's secret");
  }

  @Test
  void theRequestLogHasOneLinePerRequestWithoutKeysOrContent() {
    call("log-chat", "very private words");
    f.get("/v1/chats/log-chat", null);
    String log = f.log();
    assertThat(log.lines().filter(l -> l.contains("\"route\"")).count()).isGreaterThanOrEqualTo(2);
    assertThat(log)
        .contains("\"route\":\"/v1/chats/{chat_id}/calls\"")
        .contains("\"tenant\":\"acme\"")
        .contains("\"status\":401")
        .doesNotContain(ACME)
        .doesNotContain("very private words")
        .doesNotContain("log-chat");
  }
}
