package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.server.ProxySettings;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.TestTenants;
import dev.compactor.server.proxy.ProxyFixture.Answer;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy's operations on a real server against the fake provider, run on each store: session
 * headers, per-upstream and per-model policies (budget, reminder, summary model), retention, the
 * conversation API and the proxy's metrics.
 */
abstract class ProxyOpsContract {
  static final String SUMMARY_PROMPT = "You are summarizing part of a conversation";
  static final String CHECKPOINT =
      "## Objective\nFinish the report.\n\n## Key Decisions\n- keep it short\n\n"
          + "## Current State\nDrafting.\n\n## Open Items\n- the last section\n\n"
          + "## Context Files\n- `report.md` — the draft\n";

  /** How long the summary model {@code slow} takes to answer. */
  static final Duration SLOW_SUMMARY = Duration.ofSeconds(4);

  @TempDir Path dir;

  ProxyFixture f;

  /** A fresh, empty proxy store. */
  abstract ProxyStore openStore(Path dir);

  @AfterEach
  void stop() {
    if (f != null) {
      f.close();
    }
  }

  static FakeModelServer fakeModel() {
    return FakeModelServer.builder()
        .replyWith(
            r -> {
              if (r.body().contains(SUMMARY_PROMPT)) {
                return switch (r.model()) {
                  case "missing" -> Reply.error(Reply.Error.MODEL_NOT_FOUND);
                  case "slow" -> Reply.text(CHECKPOINT).usage(300, 60).delay(SLOW_SUMMARY);
                  default -> Reply.text(CHECKPOINT).usage(300, 60);
                };
              }
              Reply reply = Reply.text("answer to " + r.lastUserText()).usage(50, 5);
              return "slow".equals(r.lastUserText()) ? reply.delay(Duration.ofSeconds(2)) : reply;
            })
        .start();
  }

  ProxyFixture start(Map<String, ProxySettings> policies) {
    return start(policies, Tenants.localMode(), ServerSettings.builder().port(0));
  }

  ProxyFixture start(
      Map<String, ProxySettings> policies, Tenants tenants, ServerSettings.Builder settings) {
    f = new ProxyFixture(fakeModel(), openStore(dir), dir, tenants, settings, policies);
    return f;
  }

  static ObjectNode chat(String model, String... roleAndText) {
    return ProxyContract.chat(model, roleAndText);
  }

  /** A text-only conversation of {@code turns} user/assistant pairs and a last question. */
  static ObjectNode longChat(String model, int turns, int wordsPerMessage) {
    List<String> parts = new ArrayList<>();
    for (int t = 0; t < turns; t++) {
      parts.add("user");
      parts.add("question " + t + ": " + words(t, wordsPerMessage));
      parts.add("assistant");
      parts.add("reply " + t + ": " + words(t + 1000, wordsPerMessage));
    }
    parts.add("user");
    parts.add("and now the summary of it all?");
    return chat(model, parts.toArray(String[]::new));
  }

  private static String words(int seed, int n) {
    String[] w = {"river", "stone", "lamp", "orchard", "copper", "violet", "harbor", "meadow"};
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append(w[(seed + i * 7) % w.length]).append(' ');
    }
    return b.toString().strip();
  }

  /** {@code body} continued by its reply and one more user message. */
  static ObjectNode next(ObjectNode body, String reply, String user) {
    ObjectNode n = body.deepCopy();
    ArrayNode m = n.withArray("messages");
    m.addObject().put("role", "assistant").put("content", reply);
    m.addObject().put("role", "user").put("content", user);
    return n;
  }

  static ProxySettings budget(String value) {
    return new ProxySettings(BudgetSetting.of(value, "test"), null, null, null, Map.of());
  }

  // ------------------------------------------------------------------ session headers

  @Test
  void aSessionHeaderKeepsSessionsAndTheirInterleavedConversationsApart() {
    start(Map.of());
    String claude = "X-Claude-Code-Session-Id";
    ObjectNode a1 = chat("gpt-4o", "user", "hello");
    String x = f.post("/v1/chat/completions", a1.toString(), claude, "s1").header(CONV);
    // the same first request in another session: without the session it would be a retry of x
    String y = f.post("/v1/chat/completions", a1.toString(), claude, "s2").header(CONV);
    assertThat(y).isNotEqualTo(x);
    // a second conversation interleaved in session s1 (a sub-agent)
    ObjectNode b1 = chat("gpt-4o", "user", "list the files");
    String z = f.post("/v1/chat/completions", b1.toString(), claude, "s1").header(CONV);
    assertThat(z).isNotIn(x, y);
    ObjectNode a2 = next(a1, "answer to hello", "and more");
    assertThat(f.post("/v1/chat/completions", a2.toString(), claude, "s1").header(CONV))
        .isEqualTo(x);
    ObjectNode b2 = next(b1, "answer to list the files", "now the tests");
    assertThat(f.post("/v1/chat/completions", b2.toString(), claude, "s1").header(CONV))
        .isEqualTo(z);
    assertThat(f.post("/v1/chat/completions", a2.toString(), claude, "s2").header(CONV))
        .isEqualTo(y);
    // a new conversation of a session forks from the session's latest one
    JsonNode zs = f.get("/v1/proxy/conversations/" + z).json();
    assertThat(zs.path("session").asText()).isEqualTo("x-claude-code-session-id:s1");
    assertThat(zs.path("forked_from").asText()).isEqualTo(x);
    // b1, its reply, b2's echo of that reply and its question, b2's reply
    assertThat(zs.path("messages").asInt()).isEqualTo(5);
    // Codex CLI's header is read too, and the session headers reach the provider
    String w = f.post("/v1/chat/completions", a1.toString(), "session_id", "codex-1").header(CONV);
    assertThat(w).isNotIn(x, y, z);
    assertThat(f.model.lastRequest().header("session_id")).hasValue("codex-1");
    String w2 = f.post("/v1/chat/completions", a1.toString(), "session_id", "codex-2").header(CONV);
    assertThat(w2).isNotIn(x, y, z, w); // without the header it would be a retry of w
    assertThat(f.get("/v1/proxy/conversations/" + w).json().path("session").asText())
        .isEqualTo("session_id:codex-1");
    // the explicit conversation header comes first
    Answer named =
        f.post(
            "/v1/chat/completions",
            a1.toString(),
            claude,
            "s1",
            "X-Compactor-Conversation",
            "mine");
    assertThat(named.header(CONV)).isEqualTo("mine");
  }

  static final String CONV = ProxyRoutes.CONVERSATION;

  /** An Anthropic Messages body whose {@code metadata.user_id} is {@code userId}. */
  static ObjectNode claudeCode(String userId, String... roleAndText) {
    ObjectNode b = chat("claude-sonnet-4-5", roleAndText).put("max_tokens", 100);
    b.putObject("metadata").put("user_id", userId);
    return b;
  }

  /** Claude Code's {@code metadata.user_id} of 2.1.78 and later: JSON with its session id. */
  static String userIdJson(String session) {
    return ProxyFixture.JSON
        .createObjectNode()
        .put("device_id", "3f4a1b7c8d9e0f1234567890abcdef1234567890abcdef1234567890abcdef12")
        .put("account_uuid", "")
        .put("session_id", session)
        .toString();
  }

  String sessionOf(String conversation) {
    return f.get("/v1/proxy/conversations/" + conversation).json().path("session").asText(null);
  }

  @Test
  void sessionSignalsInTheBodyKeepSessionsApartAndTheBodyIsForwardedUnchanged() {
    start(Map.of());
    // Claude Code's JSON user_id: two sessions with identical requests stay apart
    String s1 = claudeCode(userIdJson("s1"), "user", "hello").toString();
    Answer x = f.post("/v1/messages", s1);
    assertThat(x.status()).as(x.body()).isEqualTo(200);
    assertThat(f.model.lastRequest().body()).isEqualTo(s1); // byte for byte
    String y =
        f.post("/v1/messages", claudeCode(userIdJson("s2"), "user", "hello").toString())
            .header(CONV);
    assertThat(y).isNotEqualTo(x.header(CONV));
    // without any signal the same request would be a retry of x: it is, within s1
    assertThat(f.post("/v1/messages", s1).header(CONV)).isEqualTo(x.header(CONV));
    assertThat(sessionOf(x.header(CONV))).isEqualTo("metadata.user_id.session_id:s1");
    assertThat(sessionOf(y)).isEqualTo("metadata.user_id.session_id:s2");
    // the older form, user_HASH_account_UUID_session_SESSION
    String legacy =
        f.post(
                "/v1/messages",
                claudeCode("user_5dd07c33_account__session_d2e70091-3007", "user", "hello")
                    .toString())
            .header(CONV);
    assertThat(legacy).isNotIn(x.header(CONV), y);
    assertThat(sessionOf(legacy)).isEqualTo("metadata.user_id.session_id:d2e70091-3007");
    // any other value is the signal whole
    String whole =
        f.post("/v1/messages", claudeCode("team-7", "user", "hello").toString()).header(CONV);
    assertThat(sessionOf(whole)).isEqualTo("metadata.user_id:team-7");
    // a session header comes before the body
    String headed = f.post("/v1/messages", s1, "X-Claude-Code-Session-Id", "s1").header(CONV);
    assertThat(headed).isNotEqualTo(x.header(CONV));
    assertThat(sessionOf(headed)).isEqualTo("x-claude-code-session-id:s1");
    // and the explicit conversation before both
    assertThat(f.post("/v1/messages", s1, "X-Compactor-Conversation", "named").header(CONV))
        .isEqualTo("named");

    // LiteLLM's litellm_session_id (in metadata or at the top) comes before prompt_cache_key
    ObjectNode lite = chat("gpt-4o", "user", "hello").put("prompt_cache_key", "k1");
    lite.putObject("metadata").put("litellm_session_id", "lite-1");
    Answer l = f.post("/v1/chat/completions", lite.toString());
    assertThat(sessionOf(l.header(CONV))).isEqualTo("litellm_session_id:lite-1");
    assertThat(f.model.lastRequest().body()).isEqualTo(lite.toString());
    ObjectNode top = chat("gpt-4o", "user", "hello").put("litellm_session_id", "lite-2");
    String t = f.post("/v1/chat/completions", top.toString()).header(CONV);
    assertThat(t).isNotEqualTo(l.header(CONV));
    assertThat(sessionOf(t)).isEqualTo("litellm_session_id:lite-2");
    // a continuation in its session continues its conversation
    ObjectNode lite2 = next(lite, "answer to hello", "and more");
    assertThat(f.post("/v1/chat/completions", lite2.toString()).header(CONV))
        .isEqualTo(l.header(CONV));

    // prompt_cache_key, in Chat Completions and Responses
    ObjectNode keyed = chat("gpt-4o", "user", "hello").put("prompt_cache_key", "k1");
    String k = f.post("/v1/chat/completions", keyed.toString()).header(CONV);
    assertThat(k).isNotIn(l.header(CONV), t);
    assertThat(sessionOf(k)).isEqualTo("prompt_cache_key:k1");
    ObjectNode r1 =
        ResponsesProxyContract.responses("gpt-5", "user", "hello").put("prompt_cache_key", "c-1");
    Answer r = f.post("/v1/responses", r1.toString());
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(f.model.lastRequest().body()).isEqualTo(r1.toString());
    ObjectNode r2 =
        ResponsesProxyContract.responses("gpt-5", "user", "hello").put("prompt_cache_key", "c-2");
    String other = f.post("/v1/responses", r2.toString()).header(CONV);
    assertThat(other).isNotEqualTo(r.header(CONV));
    assertThat(sessionOf(r.header(CONV))).isEqualTo("prompt_cache_key:c-1");
    assertThat(f.post("/v1/responses", r1.toString()).header(CONV)).isEqualTo(r.header(CONV));
    assertThat(f.model.rejections()).isEmpty();
  }

  // ------------------------------------------------------------------ policies

  @Test
  void aConfiguredTarget_setsHowFarACompactionGoes_perUpstreamAndPerModel() {
    ProxySettings openai =
        new ProxySettings(
            BudgetSetting.of("1500", "test"),
            null,
            0.3,
            null,
            Map.of("gpt-4o", new ProxySettings(null, null, 0.9, null, Map.of())));
    start(Map.of("openai", openai));
    Answer deep = f.post("/v1/chat/completions", longChat("gpt-4o-mini", 6, 202).toString());
    Answer shallow = f.post("/v1/chat/completions", longChat("gpt-4o", 6, 203).toString());
    for (Answer a : List.of(deep, shallow)) {
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.header(ProxyRoutes.ACTION)).isIn("masked", "trimmed", "summarized");
      assertThat(Long.parseLong(a.header(ProxyRoutes.TOKENS_AFTER))).isLessThan(1500);
    }
    long deepAfter = Long.parseLong(deep.header(ProxyRoutes.TOKENS_AFTER));
    long shallowAfter = Long.parseLong(shallow.header(ProxyRoutes.TOKENS_AFTER));
    assertThat(deepAfter)
        .as("toward 0.3 of the budget (the upstream's) against 0.9 (the model's)")
        .isLessThan(shallowAfter)
        .isLessThanOrEqualTo(Math.round(0.3 * 1500));
  }

  @Test
  void theBudgetComesFromTheHeaderThenTheModelThenTheUpstreamThenTheCatalog() {
    ProxySettings openai =
        new ProxySettings(
            BudgetSetting.of("1500", "test"), null, null, null, Map.of("gpt-4o", budget("100000")));
    start(Map.of("openai", openai));
    // the upstream's 1,500 tokens for a model without a table of its own
    Answer mini = f.post("/v1/chat/completions", longChat("gpt-4o-mini", 6, 200).toString());
    assertThat(mini.status()).as(mini.body()).isEqualTo(200);
    assertThat(Long.parseLong(mini.header(ProxyRoutes.TOKENS_BEFORE))).isGreaterThan(1500);
    assertThat(mini.header(ProxyRoutes.ACTION)).isIn("masked", "trimmed", "summarized");
    assertThat(Long.parseLong(mini.header(ProxyRoutes.TOKENS_AFTER))).isLessThan(1500);
    // the model's 100,000 beat the upstream's
    Answer gpt4o = f.post("/v1/chat/completions", longChat("gpt-4o", 6, 201).toString());
    assertThat(gpt4o.header(ProxyRoutes.ACTION)).isEqualTo("none");
    // the header beats the model's
    Answer header =
        f.post(
            "/v1/chat/completions",
            longChat("gpt-4o", 6, 202).toString(),
            "X-Compactor-Budget",
            "1500");
    assertThat(header.header(ProxyRoutes.ACTION)).isIn("masked", "trimmed", "summarized");
    // an upstream without a budget has the catalog's (gpt-4o's is far above this conversation)
    Answer local =
        f.post("/u/local/v1/chat/completions", longChat("gpt-4o-mini", 6, 203).toString());
    assertThat(local.header(ProxyRoutes.ACTION)).isEqualTo("none");
    assertThat(f.model.rejections()).isEmpty();
  }

  /**
   * Starts the proxy with {@code summaryModel} as the summary model of {@code openai} at a budget
   * of 1,500 and sends a chat long enough to be summarized: the answer says {@code summarized}.
   */
  private Answer summarizedWith(String summaryModel) {
    start(
        Map.of(
            "openai",
            new ProxySettings(
                BudgetSetting.of("1500", "test"), null, null, summaryModel, Map.of())));
    Answer a = f.post("/v1/chat/completions", longChat("gpt-4o", 6, 150).toString());
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.header(ProxyRoutes.ACTION)).isEqualTo("summarized");
    return a;
  }

  @Test
  void aConfiguredSummaryModelWritesTheSummary() {
    Answer a = summarizedWith("local/summarizer");
    assertThat(a.header(ProxyRoutes.REASON)).isNull();
    List<RecordedRequest> summaries =
        f.model.requests().stream().filter(r -> r.body().contains(SUMMARY_PROMPT)).toList();
    assertThat(summaries).hasSize(1);
    assertThat(summaries.get(0).model()).isEqualTo("summarizer");
    // the provider got the model's checkpoint in place of the early turns
    assertThat(f.model.lastRequest().body()).contains("Finish the report.");
  }

  @Test
  void aFailingSummaryModelFallsBackToTheExtractiveSummaryAndSaysSo() {
    Answer a = summarizedWith("local/missing");
    assertFellBackToTheExtractiveSummary(a, "local/missing");
  }

  /**
   * The summary model {@code summaryModel} failed on {@code a}: the proxy said so, sent the
   * extractive summary in place of the model's checkpoint and counted the fallback.
   */
  private void assertFellBackToTheExtractiveSummary(Answer a, String summaryModel) {
    assertThat(a.header(ProxyRoutes.REASON))
        .startsWith("summary model " + summaryModel + " failed")
        .endsWith("the extractive summary was used");
    assertThat(f.model.lastRequest().body()).doesNotContain("Finish the report.");
    assertThat(f.model.rejections()).isEmpty();
    assertThat(f.metrics.scrape())
        .contains("compactor_proxy_summary_fallbacks_total{upstream=\"openai\"} 1.0");
  }

  @Test
  void aSummaryModelSlowerThanTheServersModelTimeoutFallsBackToTheExtractiveSummary() {
    ProxySettings p =
        new ProxySettings(BudgetSetting.of("1500", "test"), null, null, "local/slow", Map.of());
    start(
        Map.of("openai", p),
        Tenants.localMode(),
        ServerSettings.builder().port(0).modelTimeout(Duration.ofMillis(500)));
    long start = System.nanoTime();
    Answer a = f.post("/v1/chat/completions", longChat("gpt-4o", 6, 150).toString());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.header(ProxyRoutes.ACTION)).isEqualTo("summarized");
    // the summary call was cut at the server's 500 ms, not the clients' default 2 minutes
    assertFellBackToTheExtractiveSummary(a, "local/slow");
    assertThat(took).isLessThan(SLOW_SUMMARY);
    assertThat(f.model.requests().stream().filter(r -> r.body().contains(SUMMARY_PROMPT)))
        .isNotEmpty();
  }

  @Test
  void theReminderIsOffByDefaultAndWhenOnIsSentOnceAndKeptInThePrefix() {
    start(Map.of("openai", new ProxySettings(null, true, null, null, Map.of())));
    ObjectNode body = longChat("gpt-4o", 6, 400);
    // measure the conversation, then give it a budget it fills to 92 %
    // (in a session of its own, so that it is not the same conversation as the requests below)
    Answer measured =
        f.post("/u/local/v1/chat/completions", body.toString(), "X-Session-Id", "measuring");
    assertThat(measured.header(ProxyRoutes.ACTION)).isEqualTo("none");
    long tokens = Long.parseLong(measured.header(ProxyRoutes.TOKENS_BEFORE));
    // (room left for the notice, its reply and one more message)
    String budget = Long.toString(Math.round(tokens / 0.92));
    // off by default (the local upstream has no policy)
    Answer off =
        f.post(
            "/u/local/v1/chat/completions",
            body.toString(),
            "X-Compactor-Budget",
            budget,
            "X-Session-Id",
            "off");
    assertThat(off.header(ProxyRoutes.ACTION)).isEqualTo("none");
    assertThat(f.model.lastRequest().body()).doesNotContain("[Context notice");
    // on for openai
    Answer on = f.post("/v1/chat/completions", body.toString(), "X-Compactor-Budget", budget);
    assertThat(on.status()).as(on.body()).isEqualTo(200);
    assertThat(on.header(ProxyRoutes.ACTION)).isEqualTo("reminded");
    JsonNode sent = f.model.lastRequest().json().path("messages");
    JsonNode last = sent.get(sent.size() - 1);
    assertThat(last.path("role").asText()).isEqualTo("user");
    assertThat(last.path("content").asText())
        .startsWith("[Context notice from the context manager");
    // the next request sends the same view, notice included, then the new messages; no second one
    String reply = on.json().at("/choices/0/message/content").asText();
    ObjectNode more = next(body, reply, "thanks");
    Answer again = f.post("/v1/chat/completions", more.toString(), "X-Compactor-Budget", budget);
    assertThat(again.header(ProxyRoutes.CONVERSATION))
        .isEqualTo(on.header(ProxyRoutes.CONVERSATION));
    assertThat(again.header(ProxyRoutes.ACTION)).isEqualTo("none");
    JsonNode sent2 = f.model.lastRequest().json().path("messages");
    for (int i = 0; i < sent.size(); i++) {
      assertThat(sent2.get(i)).isEqualTo(sent.get(i));
    }
    assertThat(sent2.size()).isEqualTo(sent.size() + 2);
    assertThat(f.model.rejections()).isEmpty();
  }

  @Test
  void anAnthropicReminderGoesIntoTheLastUserTurnAndTheProviderAcceptsIt() {
    start(Map.of("anthropic", new ProxySettings(null, true, null, null, Map.of())));
    ObjectNode body = longChat("claude-sonnet-4-5", 6, 400);
    body.put("max_tokens", 100).put("system", "You are terse.");
    Answer measured = f.post("/u/local/v1/messages", body.toString(), "X-Session-Id", "measuring");
    long tokens = Long.parseLong(measured.header(ProxyRoutes.TOKENS_BEFORE));
    String budget = Long.toString(Math.round(tokens / 0.92));
    Answer on = f.post("/v1/messages", body.toString(), "X-Compactor-Budget", budget);
    assertThat(on.status()).as(on.body()).isEqualTo(200);
    assertThat(on.header(ProxyRoutes.ACTION)).isEqualTo("reminded");
    JsonNode sent = f.model.lastRequest().json();
    JsonNode turns = sent.path("messages");
    assertThat(turns.size()).isEqualTo(body.withArray("messages").size()); // no extra turn
    JsonNode last = turns.get(turns.size() - 1);
    assertThat(last.path("role").asText()).isEqualTo("user");
    assertThat(last.toString())
        .contains("and now the summary of it all?")
        .contains("[Context notice from the context manager");
    assertThat(sent.path("system").asText()).isEqualTo("You are terse.");
    assertThat(f.model.rejections()).isEmpty();
  }

  // ------------------------------------------------------------------ retention

  @Test
  void eachRequestIsJournaledAsItsHeadersSaid_andDeletedWithTheConversation() throws Exception {
    start(Map.of("openai", budget("1500")));
    ObjectNode body = chat("gpt-4o", "user", "a short start");
    List<Answer> answers = new ArrayList<>();
    answers.add(f.post("/v1/chat/completions", body.toString()));
    ObjectNode longer = longChat("gpt-4o", 6, 150);
    longer.withArray("messages").insert(0, body.withArray("messages").get(0).deepCopy());
    longer
        .withArray("messages")
        .insert(1, ProxyFixture.JSON.readTree(answers.get(0).body()).at("/choices/0/message"));
    answers.add(f.post("/v1/chat/completions", longer.toString()));
    answers.add(
        f.post(
            "/v1/chat/completions",
            next(longer, "answer to and now the summary of it all?", "thanks").toString()));
    String id = answers.get(0).header(CONV);
    for (Answer a : answers) {
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.header(CONV)).isEqualTo(id);
    }

    List<ProxyStore.RequestRecord> rows = f.proxyStore.requests(id);
    assertThat(rows).hasSize(answers.size());
    int compacted = 0;
    for (int i = 0; i < rows.size(); i++) {
      ProxyStore.Request r = rows.get(i).request();
      Answer a = answers.get(i);
      assertThat(rows.get(i).seq()).isEqualTo(i);
      assertThat(f.proxyStore.log(id).get(rows.get(i).replySeq()).kind()).isEqualTo("reply");
      if (i > 0) {
        assertThat(rows.get(i).replySeq()).isGreaterThan(rows.get(i - 1).replySeq());
      }
      assertThat(r.action()).isEqualTo(a.header(ProxyRoutes.ACTION));
      assertThat(r.tokensBefore()).isEqualTo(Long.parseLong(a.header(ProxyRoutes.TOKENS_BEFORE)));
      assertThat(r.tokensAfter()).isEqualTo(Long.parseLong(a.header(ProxyRoutes.TOKENS_AFTER)));
      if (Set.of("masked", "trimmed", "summarized").contains(r.action())) {
        compacted++;
        assertThat(r.strategy())
            .isEqualTo(
                Map.of("masked", "mask", "trimmed", "trim", "summarized", "summarize")
                    .get(r.action()));
        assertThat(r.trigger()).isEqualTo("auto");
        assertThat(r.tokensAfter()).isLessThan(r.tokensBefore());
      } else {
        assertThat(r.strategy()).isNull();
        assertThat(r.trigger()).isNull();
      }
    }
    assertThat(rows.get(0).request().action()).isEqualTo("none");
    assertThat(compacted).isEqualTo(1);
    assertThat(f.proxyStore.byId("default", id).orElseThrow().compactions()).isEqualTo(1);

    assertThat(f.delete("/v1/proxy/conversations/" + id).status()).isEqualTo(204);
    assertThat(f.proxyStore.requests(id)).isEmpty();
  }

  @Test
  void theRetentionSweepDeletesOnlyConversationsInactiveForTheRetentionPeriod() throws Exception {
    start(Map.of());
    ObjectNode old = chat("gpt-4o", "user", "old one");
    String oldId = f.post("/v1/chat/completions", old.toString()).header(CONV);
    Thread.sleep(30);
    Instant cutoff = Instant.now();
    Thread.sleep(30);
    String newId =
        f.post("/v1/chat/completions", chat("gpt-4o", "user", "new one").toString()).header(CONV);
    ProxyRetention retention =
        new ProxyRetention(
            f.proxyStore,
            Duration.ofDays(7),
            Clock.fixed(cutoff.plus(Duration.ofDays(7)), ZoneOffset.UTC),
            f.metrics.proxy(),
            System.err);
    assertThat(retention.sweep()).isEqualTo(1);
    assertThat(f.get("/v1/proxy/conversations/" + oldId).status()).isEqualTo(404);
    assertThat(f.proxyStore.log(oldId)).isEmpty();
    assertThat(f.proxyStore.requests(oldId)).isEmpty();
    assertThat(f.get("/v1/proxy/conversations/" + newId).status()).isEqualTo(200);
    assertThat(f.proxyStore.log(newId)).hasSize(2);
    assertThat(f.proxyStore.requests(newId)).hasSize(1);
    assertThat(f.metrics.scrape()).contains("compactor_proxy_retention_deleted_total 1.0");
    // zero keeps everything
    assertThat(
            new ProxyRetention(
                    f.proxyStore,
                    Duration.ZERO,
                    Clock.fixed(Instant.now().plus(Duration.ofDays(9999)), ZoneOffset.UTC),
                    f.metrics.proxy(),
                    System.err)
                .sweep())
        .isZero();
    assertThat(f.get("/v1/proxy/conversations/" + newId).status()).isEqualTo(200);
  }

  @Test
  void theServerSweepsOnItsOwnAndARequestInFlightIsNotLost() throws Exception {
    start(
        Map.of(),
        Tenants.localMode(),
        ServerSettings.builder().port(0).proxyRetention(Duration.ofSeconds(1)));
    ObjectNode body = chat("gpt-4o", "user", "short-lived");
    String id = f.post("/v1/chat/completions", body.toString()).header(CONV);
    long deadline = System.currentTimeMillis() + 20_000;
    while (f.get("/v1/proxy/conversations/" + id).status() == 200
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(200);
    }
    assertThat(f.get("/v1/proxy/conversations/" + id).status()).isEqualTo(404);
    // the continuation of a swept conversation starts a new one, holding the whole request
    Answer a =
        f.post("/v1/chat/completions", next(body, "answer to short-lived", "again").toString());
    assertThat(a.status()).isEqualTo(200);
    String again = a.header(CONV);
    assertThat(again).isNotEqualTo(id);
    assertThat(f.proxyStore.log(again)).hasSize(4);
  }

  @Test
  void aSweepDuringARequestLeavesTheRequestStoredWholeAsANewConversation() throws Exception {
    start(Map.of());
    ObjectNode first = chat("gpt-4o", "user", "first");
    String id = f.post("/v1/chat/completions", first.toString()).header(CONV);
    ObjectNode slow = next(first, "answer to first", "slow");
    java.util.concurrent.CompletableFuture<Answer> inFlight =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> f.post("/v1/chat/completions", slow.toString()));
    // the request has read the conversation and waits for the provider: sweep it away now
    long deadline = System.currentTimeMillis() + 20_000;
    while (f.model.requests().stream().noneMatch(r -> "slow".equals(r.lastUserText()))
        && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    ProxyRetention sweep =
        new ProxyRetention(
            f.proxyStore,
            Duration.ofSeconds(1),
            Clock.fixed(Instant.now().plus(Duration.ofDays(1)), ZoneOffset.UTC),
            f.metrics.proxy(),
            System.err);
    assertThat(sweep.sweep()).isEqualTo(1);
    Answer a = inFlight.get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.json().at("/choices/0/message/content").asText()).isEqualTo("answer to slow");
    assertThat(f.get("/v1/proxy/conversations/" + id).status()).isEqualTo(404);
    JsonNode list = f.get("/v1/proxy/conversations").json().path("conversations");
    assertThat(list).hasSize(1);
    String kept = list.get(0).path("id").asText();
    assertThat(list.get(0).path("forked_from").asText()).isEqualTo(id);
    assertThat(a.header(CONV)).isEqualTo(kept); // the answer names the conversation it is in
    // the whole request and its reply, nothing of the deleted conversation's log half-kept
    List<ProxyStore.LogEntry> log = f.proxyStore.log(kept);
    assertThat(log).hasSize(4);
    assertThat(log.get(0).body()).contains("first");
    assertThat(log.get(3).body()).contains("answer to slow");
    assertThat(f.proxyStore.log(id)).isEmpty();
  }

  // ------------------------------------------------------------------ the API

  @Test
  void conversationsAreListedPagedShownAndDeleted() {
    start(Map.of());
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 3; i++) {
      ids.add(
          f.post("/v1/chat/completions", chat("gpt-4o", "user", "task " + i).toString())
              .header(CONV));
    }
    Answer p1 = f.get("/v1/proxy/conversations?limit=2");
    assertThat(p1.status()).isEqualTo(200);
    assertThat(p1.json().path("conversations")).hasSize(2);
    String cursor = p1.json().path("next_cursor").asText();
    Answer p2 = f.get("/v1/proxy/conversations?limit=2&cursor=" + cursor);
    assertThat(p2.json().path("conversations")).hasSize(1);
    assertThat(p2.json().path("next_cursor").isNull()).isTrue();
    Set<String> listed = new HashSet<>();
    p1.json().path("conversations").forEach(c -> listed.add(c.path("id").asText()));
    p2.json().path("conversations").forEach(c -> listed.add(c.path("id").asText()));
    assertThat(listed).isEqualTo(ids);
    // newest activity first
    String newest = p1.json().at("/conversations/0/id").asText();
    JsonNode one = f.get("/v1/proxy/conversations/" + newest).json();
    assertThat(one.path("upstream").asText()).isEqualTo("openai");
    assertThat(one.path("model").asText()).isEqualTo("gpt-4o");
    assertThat(one.path("api").asText()).isEqualTo("chat_completions");
    assertThat(one.path("messages").asInt()).isEqualTo(2);
    assertThat(one.path("tokens").asLong()).isPositive();
    assertThat(one.path("compactions").asInt()).isZero();
    assertThat(Instant.parse(one.path("last_activity").asText())).isBeforeOrEqualTo(Instant.now());
    // the master log, paged
    Answer log = f.get("/v1/proxy/conversations/" + newest + "/messages?limit=1");
    assertThat(log.json().path("total").asInt()).isEqualTo(2);
    assertThat(log.json().at("/messages/0/kind").asText()).isEqualTo("client");
    assertThat(log.json().at("/messages/0/item/content").asText()).isEqualTo("task 2");
    assertThat(log.json().path("next_offset").asInt()).isEqualTo(1);
    Answer log2 = f.get("/v1/proxy/conversations/" + newest + "/messages?offset=1");
    assertThat(log2.json().at("/messages/0/kind").asText()).isEqualTo("reply");
    assertThat(log2.json().at("/messages/0/item/content").asText()).isEqualTo("answer to task 2");
    assertThat(log2.json().path("next_offset").isNull()).isTrue();
    // bad parameters are the API's 400s
    Answer bad = f.get("/v1/proxy/conversations?cursor=nonsense");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.json().at("/error/code").asText()).isEqualTo("invalid_request");
    assertThat(f.get("/v1/proxy/conversations?limit=0").status()).isEqualTo(400);
    // DELETE removes the log and the index: the same request again is a new conversation
    assertThat(f.delete("/v1/proxy/conversations/" + newest).status()).isEqualTo(204);
    assertThat(f.proxyStore.log(newest)).isEmpty();
    Answer gone = f.get("/v1/proxy/conversations/" + newest);
    assertThat(gone.status()).isEqualTo(404);
    assertThat(gone.json().at("/error/code").asText()).isEqualTo("not_found");
    assertThat(f.delete("/v1/proxy/conversations/" + newest).status()).isEqualTo(404);
    String again =
        f.post("/v1/chat/completions", chat("gpt-4o", "user", "task 2").toString()).header(CONV);
    assertThat(again).isNotEqualTo(newest);
  }

  @Test
  void aTenantNeitherSeesNorDeletesAnotherTenantsConversations() {
    String keyA = "key-a-0123456789abcdef";
    String keyB = "key-b-0123456789abcdef";
    start(
        Map.of(),
        TestTenants.keys(Map.of(keyA, "tenant-a", keyB, "tenant-b")),
        ServerSettings.builder().port(0));
    String id =
        f.post(
                "/v1/chat/completions",
                chat("gpt-4o", "user", "secret plan").toString(),
                "Authorization",
                "Bearer " + keyA)
            .header(CONV);
    assertThat(
            f.get("/v1/proxy/conversations", "Authorization", "Bearer " + keyB)
                .json()
                .path("conversations"))
        .isEmpty();
    assertThat(f.get("/v1/proxy/conversations/" + id, "Authorization", "Bearer " + keyB).status())
        .isEqualTo(404);
    assertThat(
            f.get("/v1/proxy/conversations/" + id + "/messages", "Authorization", "Bearer " + keyB)
                .status())
        .isEqualTo(404);
    assertThat(
            f.delete("/v1/proxy/conversations/" + id, "Authorization", "Bearer " + keyB).status())
        .isEqualTo(404);
    assertThat(f.get("/v1/proxy/conversations/" + id, "Authorization", "Bearer " + keyA).status())
        .isEqualTo(200);
    assertThat(
            f.get("/v1/proxy/conversations", "Authorization", "Bearer " + keyA)
                .json()
                .path("conversations"))
        .hasSize(1);
    assertThat(f.get("/v1/proxy/conversations").status()).isEqualTo(401);
  }

  // ------------------------------------------------------------------ metrics

  @Test
  void theProxyIsCountedByActionReasonErrorAndTokens() {
    start(Map.of());
    f.post("/v1/chat/completions", chat("gpt-4o", "user", "hi").toString());
    f.post("/v1/chat/completions", "{not json");
    f.post(
        "/v1/chat/completions",
        longChat("gpt-4o", 6, 200).toString(),
        "X-Compactor-Budget",
        "1500");
    f.get("/v1/models");
    String m = f.get("/metrics").body();
    assertThat(m)
        .contains(
            "compactor_proxy_requests_total{action=\"none\",api=\"chat_completions\",upstream=\"openai\"} 1.0")
        .contains(
            "compactor_proxy_requests_total{action=\"passthrough\",api=\"other\",upstream=\"openai\"} 2.0")
        .contains("compactor_proxy_passthroughs_total{reason=\"not_json\",upstream=\"openai\"} 1.0")
        .contains("compactor_proxy_passthroughs_total{reason=\"route\",upstream=\"openai\"} 1.0")
        .contains(
            "compactor_proxy_upstream_errors_total{error=\"http_4xx\",upstream=\"openai\"} 2.0")
        .containsPattern(
            "compactor_proxy_requests_total\\{action=\"(masked|trimmed|summarized)\",api=\"chat_completions\",upstream=\"openai\"} 1.0")
        .contains("compactor_proxy_tokens_total{stage=\"before\",upstream=\"openai\"}")
        .contains("compactor_proxy_tokens_total{stage=\"after\",upstream=\"openai\"}");
    double before = metric(m, "compactor_proxy_tokens_total{stage=\"before\",upstream=\"openai\"}");
    double after = metric(m, "compactor_proxy_tokens_total{stage=\"after\",upstream=\"openai\"}");
    assertThat(after).isLessThan(before);
  }

  private static double metric(String scrape, String name) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).strip());
      }
    }
    throw new AssertionError("no metric " + name + " in\n" + scrape);
  }
}
