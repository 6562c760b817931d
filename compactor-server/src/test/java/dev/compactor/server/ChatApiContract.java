package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.server.ServerFixture.Answer;
import dev.compactor.testkit.model.Reply;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chat-task API over HTTP against a real server on port 0, run on each store: every route, its
 * errors, and tenant isolation (another tenant's chat is 404 on every route).
 *
 * <p>Every answer a test gets must be documented in {@code /openapi.json} for its route (checked
 * after each test); when the whole class ran, every answer the document promises for a route the
 * server has must have been produced by some test, except {@link #NOT_PRODUCED}.
 */
abstract class ChatApiContract {
  static final String ACME = "key-acme-0123456789abcdef";
  static final String GLOBEX = "key-globex-0123456789abcdef";

  /** Documented answers no test here produces, each for a stated reason. */
  static final Map<String, String> NOT_PRODUCED =
      Map.of(
          "POST /v1/chats/{chat_id}/calls 409",
          "needs two processes on one SQLite file (the multi-process tests)",
          "POST /v1/chats/{chat_id}/summarize 409",
          "needs two processes on one SQLite file (the multi-process tests)",
          "POST /v1/chats/{chat_id}/calls 503",
          "needs a one-connection PostgreSQL pool held by another call (StoreBusyTest)");

  static final OpenApiDoc DOC = OpenApiDoc.load();
  private static final Set<String> answered = new ConcurrentSkipListSet<>();
  private static final Set<String> routes = new ConcurrentSkipListSet<>();
  private static final AtomicInteger testsRun = new AtomicInteger();

  ServerFixture f;

  /** A fresh, empty store. */
  abstract ChatStore openStore();

  @BeforeAll
  static void resetAnswers() {
    answered.clear();
    routes.clear();
    testsRun.set(0);
  }

  @BeforeEach
  void start() {
    f = new ServerFixture(openStore(), TestTenants.keys(Map.of(ACME, "acme", GLOBEX, "globex")));
    routes.addAll(f.server.routes());
  }

  @AfterEach
  void stop() {
    Set<String> seen = new TreeSet<>();
    for (Timer t : f.metrics.registry().find("http.server.requests").timers()) {
      String route = t.getId().getTag("route");
      if (!"unmatched".equals(route)) {
        seen.add(t.getId().getTag("method") + " " + route + " " + t.getId().getTag("status"));
      }
    }
    f.close();
    Set<String> undocumented = new TreeSet<>(seen);
    undocumented.removeAll(DOC.answers());
    assertThat(undocumented)
        .as("answers this test got that /openapi.json does not document")
        .isEmpty();
    answered.addAll(seen);
    testsRun.incrementAndGet();
  }

  @AfterAll
  static void everyDocumentedAnswerWasProduced() {
    long tests =
        Arrays.stream(ChatApiContract.class.getDeclaredMethods())
            .filter(m -> m.isAnnotationPresent(Test.class))
            .count();
    if (testsRun.get() < tests) {
      return; // a partial run (-Dtest=Class#method) cannot tell
    }
    Set<String> missing = new TreeSet<>();
    for (String a : DOC.answers()) {
      String route = a.substring(0, a.lastIndexOf(' '));
      if (routes.contains(route) && !answered.contains(a) && !NOT_PRODUCED.containsKey(a)) {
        missing.add(a);
      }
    }
    assertThat(missing).as("answers /openapi.json documents that no test produced").isEmpty();
  }

  /** The documented {@code /v1/chats/{chat_id}…} operations the server has, as "METHOD path". */
  private Set<String> chatRoutes() {
    Set<String> out = new TreeSet<>();
    for (String r : DOC.operations().keySet()) {
      if (r.contains("{chat_id}") && routes.contains(r)) {
        out.add(r);
      }
    }
    return out;
  }

  private Answer send(String route, String chatId, String key) {
    String method = route.substring(0, route.indexOf(' '));
    String path = route.substring(route.indexOf(' ') + 1).replace("{chat_id}", chatId);
    String body =
        route.endsWith("/calls") ? ServerFixture.userCall("openai/gpt-5-mini", "hi") : null;
    return f.send(method, path, body, key);
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

  @Test
  void callsAreListedWithTheCompactionReportTheyReturned() {
    List<Answer> calls = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      calls.add(call("rep", "m" + i));
    }
    Answer list = f.get("/v1/chats/rep/calls", ACME);
    assertThat(list.status()).as(list.text()).isEqualTo(200);
    assertThat(list.json().path("chat_id").asText()).isEqualTo("rep");
    JsonNode rows = list.json().path("calls");
    assertThat(rows).hasSize(3);
    for (int i = 0; i < 3; i++) {
      JsonNode row = rows.get(i);
      JsonNode answer = calls.get(i).json();
      JsonNode report = answer.at("/_gpt_chat_details/compaction");
      if (report.isMissingNode()) {
        assertThat(row.path("compaction").isNull()).as(row.toString()).isTrue();
      } else {
        assertThat(row.path("compaction")).isEqualTo(report);
      }
      assertThat(row.path("model").asText())
          .isEqualTo(answer.at("/_gpt_chat_details/model").asText());
      assertThat(row.path("api").asText()).isEqualTo(answer.at("/_gpt_chat_details/api").asText());
      assertThat(row.path("message_count_after").asInt())
          .isEqualTo(answer.at("/_gpt_chat_details/message_count").asInt());
      assertThat(row.path("tokens_after").asLong())
          .isEqualTo(answer.at("/usage/prompt_tokens").asLong());
      assertThat(row.path("action").asText()).isEqualTo("none");
      assertThat(row.path("submitted").asBoolean()).isTrue();
    }
    assertThat(rows.get(0).path("tokens_before").isNull()).isTrue();
    assertThat(rows.get(1).path("tokens_before").asLong())
        .isEqualTo(rows.get(0).path("tokens_after").asLong());
    assertThat(f.get("/v1/chats/nope/calls", ACME).status()).isEqualTo(404);
    assertThat(f.send("DELETE", "/v1/chats/rep", null, ACME).status()).isEqualTo(204);
    assertThat(f.get("/v1/chats/rep/calls", ACME).status()).isEqualTo(404);
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

  @Test
  void everyChatRouteAnswers401WithoutAKeyAnd400ForABadChatId() {
    assertThat(chatRoutes()).hasSizeGreaterThanOrEqualTo(5);
    for (String route : chatRoutes()) {
      Answer none = send(route, "c", null);
      assertThat(none.status()).as(route + ": " + none.text()).isEqualTo(401);
      Answer longId = send(route, "x".repeat(201), ACME);
      assertThat(longId.status()).as(route + ": " + longId.text()).isEqualTo(400);
      assertThat(longId.json().at("/error/message").asText()).contains("chat_id");
    }
    assertThat(f.model.requests()).isEmpty();
  }

  @Test
  void tooManyMessagesIs413() {
    StringBuilder b = new StringBuilder("{\"model\": \"openai/gpt-5-mini\", \"messages\": [");
    for (int i = 0; i <= ServerSettings.DEFAULT_MAX_MESSAGES; i++) {
      b.append(i == 0 ? "" : ",").append("{\"role\": \"user\", \"content\": \"m\"}");
    }
    Answer a = f.post("/v1/chats/big/calls", b.append("]}").toString(), ACME);
    assertThat(a.status()).as(a.text()).isEqualTo(413);
    assertThat(a.code()).isEqualTo("too_many_messages");
    assertThat(f.get("/v1/chats/big", ACME).status()).isEqualTo(404);
  }

  @Test
  void failedSummarizationsAre502429And504AndChangeNothing() {
    for (int i = 0; i < 6; i++) {
      call("sf", "m" + i); // 12 messages: 2 to summarize, the last 10 kept
    }
    int before = f.get("/v1/chats/sf", ACME).json().path("message_count").asInt();
    f.model.replyWith(c -> Reply.raw(500, "{\"error\": {\"message\": \"boom\"}}"));
    Answer failed = f.post("/v1/chats/sf/summarize", null, ACME);
    assertThat(failed.status()).as(failed.text()).isEqualTo(502);
    assertThat(failed.code()).isEqualTo("summarize_failed");
    f.model.replyWith(c -> Reply.rateLimited());
    assertThat(f.post("/v1/chats/sf/summarize", null, ACME).status()).isEqualTo(429);
    f.model.replyWith(c -> Reply.text("late").delay(Duration.ofSeconds(4)));
    Answer slow = f.post("/v1/chats/sf/summarize", null, ACME);
    assertThat(slow.status()).as(slow.text()).isEqualTo(504);
    assertThat(f.get("/v1/chats/sf", ACME).json().path("message_count").asInt()).isEqualTo(before);
    assertThat(f.get("/v1/chats/sf/summaries", ACME).json().path("summaries")).isEmpty();
  }

  @Test
  void operationsRoutesAnswerWithoutAKey() {
    assertThat(f.get("/healthz", null).json().path("status").asText()).isEqualTo("ok");
    assertThat(f.get("/readyz", null).status()).isEqualTo(200);
    assertThat(f.get("/metrics", null).status()).isEqualTo(200);
    assertThat(f.get("/openapi.json", null).status()).isEqualTo(200);
  }

  @Test
  void aClosedStoreIs500OnEveryChatRouteAnd503OnReadyz() {
    f.store.close();
    for (String route : chatRoutes()) {
      Answer a = send(route, "gone", ACME);
      assertThat(a.status()).as(route + ": " + a.text()).isEqualTo(500);
      assertThat(a.code()).isEqualTo("internal_error");
    }
    Answer list = f.get("/v1/chats", ACME);
    assertThat(list.status()).as(list.text()).isEqualTo(500);
    Answer ready = f.get("/readyz", null);
    assertThat(ready.status()).as(ready.text()).isEqualTo(503);
    assertThat(ready.code()).isEqualTo("store_unavailable");
    assertThat(f.get("/healthz", null).status()).isEqualTo(200);
  }

  @Test
  void chatsAreListedNewestFirstPagedAndOnlyTheCallersOwn() {
    for (String c : new String[] {"l-1", "l-2", "l-3"}) {
      assertThat(call(c, "hi").status()).isEqualTo(200);
    }
    f.post("/v1/chats/l-g/calls", ServerFixture.userCall("openai/gpt-5-mini", "hi"), GLOBEX);
    Answer first = f.get("/v1/chats?limit=2", ACME);
    assertThat(first.status()).as(first.text()).isEqualTo(200);
    assertThat(first.json().path("chats")).hasSize(2);
    assertThat(first.json().at("/chats/0/chat_id").asText()).isEqualTo("l-3");
    assertThat(first.json().at("/chats/0/message_count").asInt()).isEqualTo(2);
    assertThat(first.json().at("/chats/0/settings/effective").isObject()).isTrue();
    String cursor = first.json().path("next_cursor").asText();
    assertThat(cursor).isNotBlank();
    Answer second =
        f.get(
            "/v1/chats?limit=2&cursor="
                + java.net.URLEncoder.encode(cursor, java.nio.charset.StandardCharsets.UTF_8),
            ACME);
    assertThat(second.json().path("chats")).hasSize(1);
    assertThat(second.json().at("/chats/0/chat_id").asText()).isEqualTo("l-1");
    assertThat(second.json().path("next_cursor").isNull()).isTrue();
    Answer globex = f.get("/v1/chats", GLOBEX);
    assertThat(globex.json().path("chats")).hasSize(1);
    assertThat(globex.json().at("/chats/0/chat_id").asText()).isEqualTo("l-g");
    assertThat(f.get("/v1/chats?cursor=forged", ACME).status()).isEqualTo(400);
    assertThat(f.get("/v1/chats?limit=5000", ACME).status()).isEqualTo(400);
    assertThat(f.get("/v1/chats", null).status()).isEqualTo(401);
  }

  @Test
  void deleteRemovesTheChatForItsTenantOnly() {
    call("d-1", "hi");
    assertThat(f.send("DELETE", "/v1/chats/d-1", null, GLOBEX).status()).isEqualTo(404);
    assertThat(f.get("/v1/chats/d-1", ACME).status()).isEqualTo(200);
    Answer gone = f.send("DELETE", "/v1/chats/d-1", null, ACME);
    assertThat(gone.status()).as(gone.text()).isEqualTo(204);
    assertThat(f.get("/v1/chats/d-1", ACME).status()).isEqualTo(404);
    assertThat(f.get("/v1/chats/d-1/messages", ACME).status()).isEqualTo(404);
    assertThat(f.send("DELETE", "/v1/chats/d-1", null, ACME).status()).isEqualTo(404);
  }

  @Test
  void archivedMessagesAreListedWhereTheyStood() {
    for (int i = 0; i < 8; i++) {
      call("ar", "m" + i);
    }
    assertThat(f.post("/v1/chats/ar/summarize", null, ACME).status()).isEqualTo(200);
    JsonNode history = f.get("/v1/chats/ar/messages?limit=1000", ACME).json();
    JsonNode all = f.get("/v1/chats/ar/messages?limit=1000&include=archived", ACME).json();
    assertThat(all.path("total").asInt()).isGreaterThan(history.path("total").asInt());
    assertThat(all.at("/messages/0/content").asText()).isEqualTo("m0");
    assertThat(all.at("/messages/0/archived/reason").asText()).isEqualTo("summarized");
    assertThat(all.at("/messages/0/archived/gpt_summary_uuid").asText()).isNotBlank();
    assertThat(history.at("/messages/0").has("archived")).isFalse();
    assertThat(f.get("/v1/chats/ar/messages?include=everything", ACME).code())
        .isEqualTo("invalid_request");
  }

  @Test
  void aStalledClientHoldsNoChat() throws Exception {
    assertThat(call("busy", "first").status()).isEqualTo(200);
    // a client that sends its headers and part of a body for this chat, then stalls
    try (java.net.Socket stalled = new java.net.Socket("127.0.0.1", f.server.port())) {
      String head =
          "POST /v1/chats/busy/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
              + ACME
              + "\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"model\":";
      stalled.getOutputStream().write(head.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      stalled.getOutputStream().flush();
      Thread.sleep(200);
      // meanwhile calls on the same chat go through: the body is read before the chat is held
      long started = System.nanoTime();
      assertThat(call("busy", "second").status()).isEqualTo(200);
      assertThat(f.get("/v1/chats/busy", ACME).json().path("message_count").asInt()).isEqualTo(4);
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .as("the second call did not wait for the stalled one")
          .isLessThan(ServerSettings.DEFAULT_IDLE_TIMEOUT);
    }
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
          f.get(chat + "/calls", GLOBEX),
          f.post(chat + "/summarize", null, GLOBEX),
          f.send("DELETE", chat, null, GLOBEX)
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
