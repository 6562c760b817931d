package dev.compactor.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.store.ChatStores;
import dev.compactor.server.ServerFixture.Answer;
import dev.compactor.testkit.model.Reply;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} against a real server on SQLite: each counter moves by exactly what the
 * calls did (read from the calls' own results), histograms have buckets, and no label or value
 * carries a key, a tenant, a chat id or message content.
 */
class ServerMetricsTest {
  static final String KEY = "key-metrics-0123456789abcdef";
  static final String MODEL = "openai/gpt-5-mini";

  @TempDir Path dir;
  ServerFixture f;

  @BeforeEach
  void start() {
    f =
        new ServerFixture(
            ChatStores.open(dir.resolve("chats.db").toString()),
            TestTenants.keys(Map.of(KEY, "tenant-metrics")));
  }

  @AfterEach
  void stop() {
    f.close();
  }

  private Answer call(String chat, String body) {
    Answer a = f.post("/v1/chats/" + chat + "/calls", body, KEY);
    return a;
  }

  private static String summaryCall(String text) {
    return "{\"model\": \""
        + MODEL
        + "\", \"messages\": [{\"role\": \"user\", \"content\": \""
        + text
        + "\"}], \"compaction\": {\"summary\": {\"activation\": {\"message_count\": 4},"
        + " \"message_selection\": {\"keep_last_messages\": 2}}}}";
  }

  @Test
  void countersMoveByWhatTheCallsDid() {
    Scrape before = scrape();
    long promptTokens = 0;
    long completionTokens = 0;
    // three calls with summary settings: the third finds 4 messages and summarizes 2 of them
    Answer last = null;
    for (int i = 0; i < 3; i++) {
      last = call("metrics-chat-77", summaryCall("private words " + i));
      assertThat(last.status()).as(last.text()).isEqualTo(200);
      promptTokens += last.json().at("/usage/prompt_tokens").asLong();
      completionTokens += last.json().at("/usage/completion_tokens").asLong();
    }
    assertThat(last.json().at("/_gpt_chat_details/compaction/summary/activated").asBoolean())
        .as(last.text())
        .isTrue();
    long autoBefore =
        last.json().at("/_gpt_chat_details/compaction/summary/message_count_before").asLong();
    long autoAfter =
        last.json().at("/_gpt_chat_details/compaction/summary/message_count_after").asLong();
    long autoSummaryIn = last.json().at("/_gpt_chat_details/summary_usage/prompt_tokens").asLong();
    long autoSummaryOut =
        last.json().at("/_gpt_chat_details/summary_usage/completion_tokens").asLong();
    assertThat(autoSummaryIn).isPositive();
    // on demand
    Answer sum = f.post("/v1/chats/metrics-chat-77/summarize", null, KEY);
    assertThat(sum.status()).as(sum.text()).isEqualTo(200);
    assertThat(sum.json().at("/summary/activated").asBoolean()).as(sum.text()).isTrue();
    long demandIn = sum.json().at("/summary_usage/prompt_tokens").asLong();
    long demandOut = sum.json().at("/summary_usage/completion_tokens").asLong();
    // a failing model call
    f.model.enqueue(Reply.raw(500, "{\"error\": {\"message\": \"boom\"}}"));
    assertThat(call("metrics-chat-77", ServerFixture.userCall(MODEL, "x")).status()).isEqualTo(502);
    // reads
    assertThat(f.get("/v1/chats/metrics-chat-77", KEY).status()).isEqualTo(200);
    assertThat(f.get("/v1/chats/metrics-chat-77/messages", KEY).status()).isEqualTo(200);

    Scrape after = scrape();
    Delta d = new Delta(before, after);
    String calls = "/v1/chats/{chat_id}/calls";
    assertThat(d.of("http_server_requests_seconds_count", "route", calls, "status", "200"))
        .isEqualTo(3);
    assertThat(d.of("http_server_requests_seconds_count", "route", calls, "status", "502"))
        .isEqualTo(1);
    assertThat(
            d.of(
                "http_server_requests_seconds_count",
                "method",
                "GET",
                "route",
                "/v1/chats/{chat_id}",
                "status",
                "200"))
        .isEqualTo(1);
    assertThat(
            d.of(
                "http_server_requests_seconds_count",
                "route",
                "/v1/chats/{chat_id}/summarize",
                "status",
                "200"))
        .isEqualTo(1);
    // chat-task operations, by outcome
    assertThat(d.of("compactor_chat_task_seconds_count", "operation", "call", "outcome", "ok"))
        .isEqualTo(3);
    assertThat(
            d.of(
                "compactor_chat_task_seconds_count", "operation", "call", "outcome", "model_error"))
        .isEqualTo(1);
    assertThat(d.of("compactor_chat_task_seconds_count", "operation", "summarize", "outcome", "ok"))
        .isEqualTo(1);
    // model calls: 3 chat + 1 failed chat + 2 summaries, each one request to the fake server
    assertThat(d.of("compactor_model_call_seconds_count", "provider", "openai", "outcome", "ok"))
        .isEqualTo(5)
        .isEqualTo(f.model.requests().size() - 1);
    assertThat(d.of("compactor_model_call_seconds_count", "api", "responses", "outcome", "error"))
        .isEqualTo(1);
    // compactions, summaries, their messages and tokens
    assertThat(d.of("compactor_compactions_total", "kind", "summary", "trigger", "auto"))
        .isEqualTo(1);
    assertThat(d.of("compactor_compactions_total", "kind", "summary", "trigger", "on_demand"))
        .isEqualTo(1);
    assertThat(d.of("compactor_summaries_total", "trigger", "auto", "outcome", "created"))
        .isEqualTo(1);
    assertThat(d.of("compactor_summaries_total", "trigger", "on_demand", "outcome", "created"))
        .isEqualTo(1);
    assertThat(
            d.of(
                "compactor_compactions_skipped_total",
                "kind",
                "summary",
                "reason",
                "below_threshold"))
        .isEqualTo(2);
    String[] stages = {"before", "after"};
    assertThat(d.each("compactor_compaction_messages_total", "trigger", "auto", "stage", stages))
        .containsExactly(autoBefore, autoAfter);
    assertThat(d.each("compactor_compaction_tokens_total", "trigger", "auto", "stage", stages))
        .containsExactly(autoSummaryIn, autoSummaryOut);
    assertThat(d.of("compactor_compaction_tokens_total", "trigger", "on_demand", "stage", "before"))
        .isEqualTo(demandIn);
    String[] types = {"prompt", "completion"};
    assertThat(d.each("compactor_model_tokens_total", "purpose", "chat", "type", types))
        .containsExactly(promptTokens, completionTokens);
    assertThat(d.each("compactor_model_tokens_total", "purpose", "summary", "type", types))
        .containsExactly(autoSummaryIn + demandIn, autoSummaryOut + demandOut);
    assertThat(d.of("compactor_store_errors_total")).isZero();
    assertThat(d.of("compactor_overflow_recoveries_total")).isZero();

    // histograms have their buckets
    assertThat(after.text())
        .contains("http_server_requests_seconds_bucket{")
        .contains("compactor_chat_task_seconds_bucket{")
        .contains("compactor_model_call_seconds_bucket{");
    assertThat(after.series("http_server_requests_seconds_bucket", "route", calls, "le", "+Inf"))
        .isEqualTo(4);
    assertThat(after.text())
        .containsPattern("http_server_requests_seconds_bucket\\{[^}]*le=\"0.005\"");
    // nothing secret
    assertThat(after.text())
        .doesNotContain(KEY)
        .doesNotContain("sk-upstream")
        .doesNotContain("tenant-metrics")
        .doesNotContain("metrics-chat-77")
        .doesNotContain("private words")
        .doesNotContain("gpt-5-mini");
  }

  @Test
  void providerCompactionAndOverflowRecoveryAreCounted() {
    Scrape before = scrape();
    f.model.enqueue(Reply.text("compacted reply").usage(500, 7).compacted());
    Answer p =
        call(
            "prov",
            "{\"model\": \""
                + MODEL
                + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"compaction\":"
                + " {\"provider\": {\"compact_threshold\": 1000}}}");
    assertThat(p.status()).as(p.text()).isEqualTo(200);
    assertThat(p.json().at("/_gpt_chat_details/compaction/provider/compacted").asBoolean())
        .as(p.text())
        .isTrue();
    // a chat long enough to be trimmed, then one overflow before the retry fits
    StringBuilder messages = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      messages
          .append(i == 0 ? "" : ", ")
          .append("{\"role\": \"")
          .append(i % 2 == 0 ? "user" : "assistant")
          .append("\", \"content\": \"")
          .append(("old step " + i + " ").repeat(200))
          .append("\"}");
    }
    messages.append(", {\"role\": \"user\", \"content\": \"now\"}");
    f.model.enqueue(Reply.contextLengthExceeded());
    Answer o = call("over", "{\"model\": \"" + MODEL + "\", \"messages\": [" + messages + "]}");
    assertThat(o.status()).as(o.text()).isEqualTo(200);
    int retries = o.json().at("/_gpt_chat_details/overflow_recovery/retries").asInt();
    assertThat(o.json().at("/_gpt_chat_details/overflow_recovery/recovered").asBoolean())
        .as(o.text())
        .isTrue();

    Delta d = new Delta(before, scrape());
    assertThat(d.of("compactor_compactions_total", "kind", "provider", "trigger", "auto"))
        .isEqualTo(1);
    assertThat(d.of("compactor_compactions_total", "kind", "summary")).isZero();
    assertThat(d.of("compactor_overflow_recoveries_total")).isEqualTo(1);
    assertThat(d.of("compactor_overflow_recovery_retries_total")).isEqualTo(retries);
    assertThat(d.of("compactor_model_call_seconds_count", "outcome", "context_overflow"))
        .isEqualTo(1);
  }

  @Test
  void unmatchedPathsAndChatIdsNeverBecomeLabels() {
    f.get("/v1/chats/secret-id-123", KEY); // a route, a missing chat: 404
    f.get("/v1/chats/secret-id-123/nothing-here", KEY); // no route
    f.send("DELETE", "/v1/chats/secret-id-123/calls", null, KEY); // no such method
    f.get("/secret-id-123", null);
    f.send("SECRETVERB", "/v1/chats/secret-id-123", null, KEY); // any token is a method
    f.get("/v1/chats/secret-id-123", "wrong-key-secret");
    String text = scrape().text();
    assertThat(text)
        .doesNotContain("secret-id-123")
        .doesNotContain("nothing-here")
        .doesNotContain("wrong-key-secret")
        .doesNotContain("SECRETVERB")
        .doesNotContain(KEY);
    Scrape s = scrape();
    assertThat(s.requests("unmatched", "404")).isEqualTo(4);
    assertThat(s.series("http_server_requests_seconds_count", "method", "other")).isEqualTo(1);
    assertThat(s.requests("/v1/chats/{chat_id}", "404")).isEqualTo(1);
    // a 401 answered before the route ran is still counted under its route template
    assertThat(s.requests("/v1/chats/{chat_id}", "401")).isEqualTo(1);
  }

  @Test
  void storeFailuresAreCountedByRoute() throws Exception {
    assertThat(call("kept", ServerFixture.userCall(MODEL, "hi")).status()).isEqualTo(200);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("chats.db"));
        Statement st = c.createStatement()) {
      st.execute("DROP TABLE summaries");
    }
    Scrape before = scrape();
    Answer show = f.get("/v1/chats/kept", KEY);
    assertThat(show.status()).as(show.text()).isEqualTo(500);
    assertThat(show.code()).isEqualTo("internal_error");
    Delta d = new Delta(before, scrape());
    assertThat(d.of("compactor_store_errors_total", "route", "/v1/chats/{chat_id}")).isEqualTo(1);
    assertThat(d.of("http_server_requests_seconds_count", "status", "500")).isEqualTo(1);
  }

  @Test
  void theMetricsRouteSpeaksThePrometheusTextFormat() {
    Answer a = f.get("/metrics", null);
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.raw().headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/plain; version=0.0.4");
    assertThat(a.text())
        .contains("# TYPE jvm_memory_used_bytes gauge")
        .contains("# TYPE process_uptime_seconds gauge");
  }

  // ------------------------------------------------------------------ scraping

  private Scrape scrape() {
    Answer a = f.get("/metrics", null);
    assertThat(a.status()).isEqualTo(200);
    return Scrape.parse(a.text());
  }

  /** One sample line: name, labels, value. */
  record Sample(String name, Map<String, String> labels, double value) {}

  /** The samples of one scrape. */
  record Scrape(String text, java.util.List<Sample> samples) {
    private static final Pattern LINE =
        Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)$");
    private static final Pattern LABEL =
        Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static Scrape parse(String text) {
      java.util.List<Sample> out = new java.util.ArrayList<>();
      for (String line : text.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        Matcher m = LINE.matcher(line);
        assertThat(m.matches()).as("a Prometheus sample line: %s", line).isTrue();
        Map<String, String> labels = new LinkedHashMap<>();
        if (m.group(3) != null) {
          Matcher l = LABEL.matcher(m.group(3));
          while (l.find()) {
            labels.put(l.group(1), l.group(2));
          }
        }
        out.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
      }
      return new Scrape(text, out);
    }

    /** The sum of the samples named {@code name} whose labels include {@code labels}. */
    /** The count of HTTP requests to {@code route} answered with {@code status}. */
    double requests(String route, String status) {
      return series("http_server_requests_seconds_count", "route", route, "status", status);
    }

    double series(String name, String... labels) {
      Map<String, String> want = new HashMap<>();
      for (int i = 0; i < labels.length; i += 2) {
        want.put(labels[i], labels[i + 1]);
      }
      return samples.stream()
          .filter(s -> s.name().equals(name))
          .filter(s -> s.labels().entrySet().containsAll(want.entrySet()))
          .mapToDouble(Sample::value)
          .sum();
    }
  }

  /** How much a series moved between two scrapes. */
  record Delta(Scrape before, Scrape after) {
    long of(String name, String... labels) {
      double d = after.series(name, labels) - before.series(name, labels);
      assertThat(d)
          .as("%s %s moves by a whole number", name, String.join(",", labels))
          .isEqualTo(Math.rint(d));
      return (long) d;
    }

    /**
     * How each of the series {@code name{label=value, by=v}} moved, for each {@code v} of {@code
     * each}, in that order.
     */
    List<Long> each(String name, String label, String value, String by, String... each) {
      return Stream.of(each).map(v -> of(name, label, value, by, v)).toList();
    }
  }
}
