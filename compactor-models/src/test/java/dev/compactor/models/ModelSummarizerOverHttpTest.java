package dev.compactor.models;

import static dev.compactor.models.testing.Fixtures.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.ManualCompactor;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import dev.compactor.wire.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The checkpoint prompt and the model summarizer against a local OpenAI-compatible server. */
class ModelSummarizerOverHttpTest {
  static final String CHECKPOINT =
      """
      ## Objective
      Refactor the billing module and keep the tests green.

      ## Key Decisions
      - Keep the public API of InvoiceService unchanged.

      ## Current State
      Steps 0 to 39 built fine; the test suite has not run yet.

      ## Open Items
      - Run the whole test suite.

      ## Context Files
      - `src/main/java/billing/InvoiceService.java` — refactored in step 12
      """;

  private final FakeModelServer server = FakeModelServer.start();
  private final List<Duration> sleeps = new ArrayList<>();

  @AfterEach
  void stop() {
    server.close();
  }

  static String completion(String content) {
    return "{\"id\":\"c\",\"model\":\"qwen3\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
        + "\"assistant\",\"content\":"
        + Json.MAPPER.valueToTree(content)
        + "},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":9000,\"completion_tokens\":90}}";
  }

  private ChatModel model() {
    return ChatModels.create(
        "openai/gpt-4o",
        options(server.url() + "/v1", sleeps).api(ModelApi.CHAT_COMPLETIONS).build());
  }

  /** {@link OverflowRecoveryOverHttpTest#session} with {@code steps} tool steps, in memory. */
  private static InMemoryConversation session(int steps) {
    return new InMemoryConversation(
        new InMemoryMasterLog(OverflowRecoveryOverHttpTest.session(steps)));
  }

  /** Compacts by name with {@code summarize} through {@link #model()}; reports are dropped. */
  private ManualCompactor summarizing() {
    return new ManualCompactor(
        name -> new SummarizeProvider(ModelSummarizer.builder(model()).build()),
        Clock.systemUTC(),
        report -> {});
  }

  private static PolicyContext ctx(String instructions) {
    return PolicyContext.of(
            "openai/gpt-4o",
            6_000,
            CompressionConfig.builder().counter(TokenCounters.estimate()).build())
        .withInstructions(instructions)
        .withKeepRecentTokens(1_000);
  }

  @Test
  void summarize_sendsTheCheckpointPrompt_andThePromptCarriesSectionsAndInstructions() {
    server.enqueue(Reply.raw(200, completion(CHECKPOINT)));
    InMemoryConversation c = session(40);
    ManualCompactor manual = summarizing();

    CompactionOutcome o =
        manual.compact(
            c, "summarize", "Focus on the billing tests.", ctx("Project rule: be brief."));

    assertThat(o).isInstanceOf(CompactionOutcome.Compacted.class);
    assertThat(server.requests()).hasSize(1);
    RecordedRequest req = server.lastRequest();
    assertThat(req.path()).isEqualTo("/v1/chat/completions");
    JsonNode body = req.json();
    assertThat(body.get("max_completion_tokens").asInt()).isEqualTo(8192);
    String system = body.get("messages").get(0).get("content").asText();
    String user = body.get("messages").get(1).get("content").asText();
    assertThat(body.get("messages").get(0).get("role").asText()).isEqualTo("system");
    assertThat(system)
        .contains("## Objective", "## Key Decisions", "## Current State", "## Open Items")
        .contains("## Context Files\n- `path` — ")
        .endsWith(
            "Additional instructions:\nProject rule: be brief.\n\nFocus on the billing tests.");
    assertThat(user)
        .contains("[user]\nRefactor the billing module.")
        .contains("[tool call shell (call_0)]");

    Message cp =
        c.activeMessages().stream()
            .filter(SummarizeProvider::isCheckpoint)
            .findFirst()
            .orElseThrow();
    assertThat(cp.content())
        .contains("summarized here by openai/gpt-4o")
        .contains("## Objective\nRefactor the billing module and keep the tests green.")
        .contains("- `src/main/java/billing/InvoiceService.java` — refactored in step 12");
  }

  @Test
  void summarize_carriesThePreviousCheckpointForward() {
    server.enqueue(Reply.raw(200, completion(CHECKPOINT)));
    server.enqueue(
        Reply.raw(200, completion(CHECKPOINT.replace("has not run yet", "ran: 2 failures"))));
    InMemoryConversation c = session(40);
    ManualCompactor manual = summarizing();
    manual.compact(c, "summarize", null, ctx(null));
    for (Message m : OverflowRecoveryOverHttpTest.session(30)) {
      c.append(m.toBuilder().id("more-" + m.id()).timestamp(null).build());
    }

    manual.compact(c, "summarize", null, ctx(null));

    String user = server.lastRequest().json().get("messages").get(1).get("content").asText();
    assertThat(user)
        .contains("<previous-checkpoint>")
        .contains("Refactor the billing module and keep the tests green.")
        .contains("Carry it forward");
  }

  @Test
  void serverError_failsTheSummary_andKeepsTheView() {
    server.enqueue(Reply.raw(400, "{\"error\":{\"message\":\"model not loaded\"}}"));
    InMemoryConversation c = session(40);
    ManualCompactor manual = summarizing();

    CompactionOutcome o = manual.compact(c, "summarize", null, ctx(null));

    assertThat(o).isInstanceOf(CompactionOutcome.Failed.class);
    assertThat(((CompactionOutcome.Failed) o).reason())
        .startsWith("Failed to generate the summary: summarizer openai/gpt-4o failed")
        .contains("model not loaded");
    assertThat(c.views()).hasSize(1);
  }
}
