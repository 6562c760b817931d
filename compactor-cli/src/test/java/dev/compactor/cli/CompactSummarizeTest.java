package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.message.Message;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code compactor compact --strategy summarize} with a model, in-process, against 127.0.0.1. */
class CompactSummarizeTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = "sk-cli-test-SECRET-0123456789";
  private static final String CHECKPOINT =
      "## Objective\\nKeep the InvoiceService tests green.\\n\\n## Key Decisions\\n- No API"
          + " changes.\\n\\n## Current State\\nThe suite passes.\\n\\n## Open Items\\n- Release."
          + "\\n\\n## Context Files\\n- `src/InvoiceService.java` — edited";

  private static final String BUDGET = "--context-budget";
  @TempDir Path dir;
  private final FakeModelServer server = FakeModelServer.start();
  private volatile int status = 200;
  private volatile String reply =
      "{\"id\":\"c\",\"model\":\"local\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
          + "\"assistant\",\"content\":\""
          + CHECKPOINT
          + "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":50,"
          + "\"completion_tokens\":40}}";

  @BeforeEach
  void script() {
    server.replyWith(r -> Reply.raw(status, reply));
  }

  @AfterEach
  void stop() {
    assertThat(server.rejections()).as("requests a provider would refuse").isEmpty();
    server.close();
  }

  private List<String> paths() {
    return server.requests().stream().map(RecordedRequest::path).toList();
  }

  private List<String> auth() {
    return server.requests().stream().map(r -> r.header("Authorization").orElse("null")).toList();
  }

  /** No API keys, HOME in the temp dir (no user config). */
  private Map<String, String> env() {
    return Map.of("HOME", dir.toString());
  }

  /**
   * {@code compact <a sample> --out <conv> --strategy summarize --context-budget 0.1}, with {@code
   * --model} and {@code --base-url} where given (non-null) and then {@code options}.
   */
  private CliRunner summarize(
      Map<String, String> env, Path conv, String model, String baseUrl, String... options) {
    List<String> args = new ArrayList<>(List.of(BUDGET, "0.1"));
    if (model != null) {
      args.addAll(List.of("--model", model));
    }
    if (baseUrl != null) {
      args.addAll(List.of("--base-url", baseUrl));
    }
    args.addAll(List.of(options));
    Path sample = CliRunner.sample(dir.resolve("session.jsonl"), 60, 3);
    return CliRunner.compact(env, sample, conv, "summarize", args.toArray(String[]::new));
  }

  @Test
  void summarize_withModelAndBaseUrl_asksTheOpenAiCompatibleServer() throws Exception {
    Path conv = dir.resolve("conv");
    CliRunner r =
        summarize(
            env(),
            conv,
            "openai/gpt-4o",
            server.baseUrl(),
            "--instructions",
            "Focus on the failing tests.",
            "--json");

    assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("summarizer").asText()).isEqualTo("openai/gpt-4o");
    assertThat(j.get("outcome").asText()).isEqualTo("compacted");
    assertThat(paths()).isNotEmpty().allMatch("/v1/chat/completions"::equals);
    assertThat(auth()).allMatch("null"::equals); // no key for a local server
    JsonNode body = server.requests().get(0).json();
    String system = body.get("messages").get(0).get("content").asText();
    assertThat(system)
        .contains("## Objective", "## Key Decisions", "## Current State", "## Open Items")
        .contains("## Context Files")
        .contains("Additional instructions:\nFocus on the failing tests.");
    assertThat(body.get("messages").get(1).get("content").asText()).contains("<transcript>");
    try (StoredConversation c = StoredConversation.open(conv)) {
      assertThat(c.activeMessages())
          .filteredOn(SummarizeProvider::isCheckpoint)
          .first()
          .extracting(Message::content, InstanceOfAssertFactories.STRING)
          .contains("by openai/gpt-4o")
          .contains("Keep the InvoiceService tests green.");
      assertThat(c.journal().entries())
          .singleElement()
          .satisfies(e -> assertThat(e.strategy()).isEqualTo("summarize"));
    }
  }

  @Test
  void summarize_withoutModelOrBaseUrl_usesTheOfflineExtractiveSummarizer() throws Exception {
    CliRunner r = summarize(env(), dir.resolve("conv"), null, null, "--json");

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(JSON.readTree(r.out()).get("summarizer").asText()).isEqualTo("extractive");
    assertThat(paths()).isEmpty();
  }

  @Test
  void summarize_withAModelButNoKeyAndNoBaseUrl_failsClearly_andLeavesNoDirectory() {
    Path conv = dir.resolve("conv");
    CliRunner r = summarize(env(), conv, "openai/gpt-4o", null);

    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .contains("no API key for openai/gpt-4o: set OPENAI_API_KEY")
        .contains("OPENAI_API_KEY")
        .contains("--base-url")
        .contains("--summarizer extractive");
    // Refused before anything was written: no conversation directory, no leftover import.
    assertThat(conv).doesNotExist();
    assertThat(dir.toFile().list()).allMatch(n -> !n.contains(".importing-"));
  }

  @Test
  void summarize_serverErrorEchoingTheKey_failsWithoutPrintingIt() throws Exception {
    status = 400;
    reply = "{\"error\":{\"message\":\"bad key " + KEY + " for this model\"}}";
    CliRunner r =
        summarize(
            Map.of("HOME", dir.toString(), "OPENAI_API_KEY", KEY),
            dir.resolve("conv"),
            "openai/gpt-4o",
            server.baseUrl(),
            "--json");

    assertThat(r.exitCode()).isEqualTo(3);
    assertThat(JSON.readTree(r.out()).get("reason").asText())
        .startsWith("Failed to generate the summary");
    assertThat(r.out() + r.err()).doesNotContain(KEY);
    assertThat(auth()).containsOnly("Bearer " + KEY);
  }

  @Test
  void summarizerOption_extractive_skipsTheModel_andBadValuesAreNamed() {
    CliRunner r =
        summarize(env(), dir.resolve("conv"), "openai/gpt-4o", null, "--summarizer", "extractive");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(paths()).isEmpty();

    Path conv = dir.resolve("conv");
    CliRunner bad =
        CliRunner.compact(env(), conv, null, "summarize", "--summarizer", "gpt", BUDGET, "0.1");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("\"gpt\"").contains("--summarizer");

    CliRunner badApi =
        CliRunner.compact(
            env(),
            conv,
            null,
            "summarize",
            "--base-url",
            server.baseUrl(),
            "--api",
            "soap",
            BUDGET,
            "0.1");
    assertThat(badApi.exitCode()).isEqualTo(2);
    assertThat(badApi.err()).contains("soap").contains("--api");
  }
}
