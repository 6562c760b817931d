package dev.compactor.core.compaction.summary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.CharCounter;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ModelSummarizerTest {
  /** One token per character. */
  private static final TokenCounter CHARS = CharCounter.CHARS;

  private static final String GOOD =
      """
      ## Objective
      Fix the failing InvoiceService test.

      ## Key Decisions
      - Keep the public API unchanged.

      ## Current State
      `mvn test` fails in InvoiceServiceTest.

      ## Open Items
      - Rerun the tests.

      ## Context Files
      - `src/main/java/InvoiceService.java` — edited twice
      """;

  /** Answers with a scripted response and records the requests. */
  static final class FakeModel implements ChatModel {
    final List<ChatRequest> requests = new ArrayList<>();
    Supplier<ChatResponse> answer = () -> reply(GOOD, FinishReason.STOP);

    @Override
    public String provider() {
      return "test";
    }

    @Override
    public String model() {
      return "summarizer";
    }

    @Override
    public ModelApi api() {
      return ModelApi.CHAT_COMPLETIONS;
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
      requests.add(request);
      return answer.get();
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
      return chat(request);
    }
  }

  static ChatResponse reply(String text, FinishReason reason) {
    return new ChatResponse(Message.assistant(text), null, reason, null, null, null, null);
  }

  private static List<Message> session() {
    return List.of(
        Message.user("Please fix the failing test in InvoiceService."),
        Message.assistant(
            "Running the tests.", List.of(new ToolCall("c1", "shell", "{\"cmd\":\"mvn test\"}"))),
        Message.toolResult("c1", "Tests run: 12, Failures: 1\nInvoiceServiceTest.total FAILED"),
        Message.assistant("The total is off by one; I will fix the rounding."));
  }

  private static ModelSummarizer summarizer(FakeModel m, long window) {
    return ModelSummarizer.builder(m).contextWindow(window).counter(CHARS).build();
  }

  /** A model whose every answer is {@code text}, finished for {@code reason}. */
  private static FakeModel answering(String text, FinishReason reason) {
    FakeModel m = new FakeModel();
    m.answer = () -> reply(text, reason);
    return m;
  }

  /** {@link #session()} summarized by {@code m} in a 200,000-token window, from scratch. */
  private static Checkpoint summarizeSession(FakeModel m) {
    return summarizer(m, 200_000).summarize(session(), null, null);
  }

  @Test
  void prompt_asksForTheFiveSections_carriesForward_andAppendsInstructions() {
    FakeModel m = new FakeModel();
    Checkpoint previous =
        new Checkpoint(
            "Ship v2.", List.of("Use Java 17."), "Started.", List.of(), List.of(), List.of());

    Checkpoint cp = summarizer(m, 200_000).summarize(session(), previous, "Focus on the tests.");

    ChatRequest req = m.requests.get(0);
    String system = req.messages().get(0).content();
    String user = req.messages().get(1).content();
    assertThat(req.messages().get(0).role()).isEqualTo(Role.SYSTEM);
    assertThat(system)
        .contains(
            "## Objective",
            "## Key Decisions",
            "## Current State",
            "## Open Items",
            "## Context Files")
        .contains("- `path` — ")
        .endsWith("\n\nAdditional instructions:\nFocus on the tests.");
    assertThat(user)
        .contains("<previous-checkpoint>", "Ship v2.", "Use Java 17.")
        .contains("[user]\nPlease fix the failing test in InvoiceService.")
        .contains("[tool call shell (c1)] {\"cmd\":\"mvn test\"}")
        .contains("[tool result of shell (c1)]\nTests run: 12, Failures: 1")
        .contains("4 messages, oldest first");
    assertThat(req.maxOutputTokens()).isEqualTo(8192);
    assertThat(cp.objective()).isEqualTo("Fix the failing InvoiceService test.");
    assertThat(cp.filesToReload())
        .extracting(Checkpoint.FileToReload::path)
        .containsExactly("src/main/java/InvoiceService.java");
  }

  @Test
  void longToolOutputs_areClippedHeadAndTail() {
    FakeModel m = new FakeModel();
    String big = "H".repeat(5000) + "M".repeat(5000) + "T".repeat(5000);
    List<Message> in =
        List.of(
            Message.assistant("", List.of(new ToolCall("c1", "shell", "{}"))),
            Message.toolResult("c1", big));

    summarizer(m, 200_000).summarize(in, null, null);

    String user = m.requests.get(0).messages().get(1).content();
    assertThat(user).containsPattern("\\[\\.\\.\\. \\d+ characters omitted \\.\\.\\.\\]");
    assertThat(user).contains("HHHH").contains("TTTT").doesNotContain("M".repeat(3000));
    java.util.regex.Matcher h = java.util.regex.Pattern.compile("H{100,}").matcher(user);
    java.util.regex.Matcher t = java.util.regex.Pattern.compile("T{100,}").matcher(user);
    assertThat(h.find()).isTrue();
    assertThat(t.find()).isTrue();
    // about 1,980 characters kept of 15,000: two thirds head, one third tail
    assertThat(h.group().length()).isEqualTo(1320);
    assertThat(t.group().length()).isEqualTo(660);
    assertThat(user).contains("[... 13020 characters omitted ...]");
  }

  @Test
  void inputBeyondTheWindow_dropsTheOldestMessages_withANote() {
    FakeModel m = new FakeModel();
    List<Message> in = new ArrayList<>();
    for (int i = 0; i < 80; i++) {
      in.add(Message.user("request " + i + " " + "x".repeat(480)));
    }
    ModelSummarizer s = summarizer(m, 40_000); // output 8192, reserve 4000, prompt ~1.5k

    s.summarize(in, null, null);

    ChatRequest req = m.requests.get(0);
    String user = req.messages().get(1).content();
    assertThat(user).containsPattern("\\[Note: the \\d+ oldest messages were left out");
    assertThat(user).contains("request 79 ").doesNotContain("request 0 ");
    long total = CHARS.countText(req.messages().get(0).content()) + CHARS.countText(user);
    assertThat(total).isLessThanOrEqualTo(40_000 - 8192 - 4000);
  }

  @Test
  void modelErrorWithoutAMessage_namesTheExceptionType() {
    FakeModel m = new FakeModel();
    m.answer =
        () -> {
          throw new IllegalStateException();
        };
    assertThatThrownBy(() -> summarizeSession(m))
        .isInstanceOf(SummarizationException.class)
        .hasMessageContaining("java.lang.IllegalStateException (no message)")
        .hasMessageNotContaining("null");
    Summarizer broken =
        (covered, previous, instructions) -> {
          throw new NullPointerException();
        };
    assertThatThrownBy(
            () ->
                new SummarizeProvider(broken)
                    .compress(
                        session(), CompressionConfig.builder().counter(CHARS).limit(50).build()))
        .isInstanceOf(SummarizationException.class)
        .hasMessageContaining("NullPointerException")
        .hasMessageNotContaining(": null");
  }

  @Test
  void smallWindow_shrinksOutputAndReserve() {
    FakeModel m = new FakeModel();
    ModelSummarizer s = summarizer(m, 8192);
    assertThat(s.maxOutputTokens()).isEqualTo(2048);
    s.summarize(session(), null, null);
    assertThat(m.requests.get(0).maxOutputTokens()).isEqualTo(2048);
  }

  @Test
  void windowTooSmallForThePrompt_isASummarizationException() {
    FakeModel m = new FakeModel();
    assertThatThrownBy(() -> summarizer(m, 1000).summarize(session(), null, null))
        .isInstanceOf(SummarizationException.class)
        .hasMessageContaining("context window of 1000 tokens");
    assertThat(m.requests).isEmpty();
  }

  @Test
  void emptyOutput_isASummarizationException() {
    FakeModel m = answering("  ", FinishReason.STOP);
    assertThatThrownBy(() -> summarizeSession(m))
        .isInstanceOf(SummarizationException.class)
        .hasMessageContaining("returned no text");
  }

  @Test
  void outputWithoutSections_isASummarizationException() {
    FakeModel m = answering("I cannot help with that.", FinishReason.STOP);
    assertThatThrownBy(() -> summarizeSession(m))
        .isInstanceOf(SummarizationException.class)
        .hasMessageContaining("no checkpoint sections")
        .hasMessageContaining("I cannot help");
  }

  @Test
  void modelError_isASummarizationException_withTheCause() {
    FakeModel m = new FakeModel();
    RetryableModelException boom =
        new RetryableModelException(
            "test: 503 overloaded", ModelError.of("test", 503), null, null, null);
    m.answer =
        () -> {
          throw boom;
        };
    assertThatThrownBy(() -> summarizeSession(m))
        .isInstanceOf(SummarizationException.class)
        .hasMessageContaining("test/summarizer failed: test: 503 overloaded")
        .hasCause(boom);
  }

  @Test
  void fencedOutputAndThinkBlocks_areUnwrapped() {
    FakeModel m =
        answering("<think>hmm</think>\n```markdown\n" + GOOD + "```\n", FinishReason.STOP);
    Checkpoint cp = summarizeSession(m);
    assertThat(cp.objective()).isEqualTo("Fix the failing InvoiceService test.");
    assertThat(cp.currentState()).doesNotContain("hmm");
  }

  @Test
  void outputCutAtTheLimit_isKept_withANote() {
    FakeModel m = answering("## Objective\nFix it.\n\n## Current State\nHalf", FinishReason.LENGTH);
    Checkpoint cp = summarizeSession(m);
    assertThat(cp.currentState())
        .contains("Half")
        .contains("cut at the output limit of 8192 tokens");
  }

  @Test
  void failingSummary_latchesTheAutomaticPolicy() {
    FakeModel m = answering("", FinishReason.STOP);
    InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog());
    for (int i = 0; i < 30; i++) {
      conv.append(Message.user("note " + i + " " + "y".repeat(200)));
    }
    AutoCompactor auto =
        new AutoCompactor(
            conv,
            new TrimProvider(),
            new SummarizeProvider(summarizer(m, 200_000)),
            (msgs, cfg) -> 0.0, // a trim would save nothing: summarize
            new AutoCompactor.Settings(0.9, 0.7, 0.10, 20, Duration.ZERO),
            Clock.fixed(Instant.parse("2026-03-01T10:00:00Z"), ZoneOffset.UTC),
            r -> {});
    PolicyContext ctx =
        PolicyContext.of("test/model", 2000, CompressionConfig.builder().counter(CHARS).build())
            .withKeepRecentTokens(500);

    CompactionOutcome o = auto.afterTurn(ctx);

    assertThat(o).isInstanceOf(CompactionOutcome.Failed.class);
    assertThat(((CompactionOutcome.Failed) o).reason()).contains("returned no text");
    assertThat(auto.latched()).isTrue();
    assertThat(m.requests).hasSize(1);
  }

  @Test
  void throughTheSummarizeStrategy_theCheckpointNamesTheModel() {
    FakeModel m = new FakeModel();
    List<Message> in = new ArrayList<>(session());
    for (int i = 0; i < 10; i++) {
      in.add(Message.user("more " + i + " " + "z".repeat(300)));
    }
    CompactionResult r =
        new SummarizeProvider(summarizer(m, 200_000))
            .compress(
                in,
                CompressionConfig.builder()
                    .counter(CHARS)
                    .extraConfig(java.util.Map.of(SummarizeProvider.KEEP_RECENT_TOKENS, 400))
                    .build());
    Message cp =
        r.messages().stream().filter(SummarizeProvider::isCheckpoint).findFirst().orElseThrow();
    assertThat(cp.content())
        .contains("by test/summarizer")
        .contains("## Objective\nFix the failing");
  }

  @Test
  void summarizeText_sendsTheInstructionsAndANumberedTranscript_andReturnsTheTextWithUsage() {
    FakeModel m = new FakeModel();
    Usage usage = new Usage(120, 7, 0, 0, 0);
    m.answer =
        () ->
            new ChatResponse(
                Message.assistant("  the gist \n"),
                usage,
                FinishReason.STOP,
                null,
                null,
                null,
                null);
    String huge = "y".repeat(20_000);
    List<Message> covered = new ArrayList<>(session());
    covered.add(Message.user(huge));

    SummaryText t = summarizer(m, 200_000).summarizeText(covered, "Keep the decisions.", 321);

    assertThat(t.text()).isEqualTo("the gist");
    assertThat(t.usage()).isEqualTo(usage);
    assertThat(t.finishReason()).isEqualTo(FinishReason.STOP);
    ChatRequest req = m.requests.get(0);
    assertThat(req.maxOutputTokens()).isEqualTo(321);
    assertThat(req.messages().get(0).content()).isEqualTo("Keep the decisions.");
    assertThat(req.messages().get(1).content())
        .startsWith("Summarize this conversation excerpt (5 messages):\n")
        .contains("[1] user:\nPlease fix the failing test in InvoiceService.")
        .contains("-> tool call shell (c1): {\"cmd\":\"mvn test\"}")
        .contains("[3] tool result (c1):\nTests run: 12")
        .contains("[... 12000 characters omitted ...]");
  }

  @Test
  void summarizeText_emptyAnswerIsReturned_failedCallThrows() {
    FakeModel m = answering(" ", FinishReason.LENGTH);
    SummaryText t = summarizer(m, 200_000).summarizeText(session(), "Brief.", 10);
    assertThat(t.text()).isEmpty();
    assertThat(t.usage()).isEqualTo(SummaryText.NO_USAGE);
    assertThat(t.finishReason()).isEqualTo(FinishReason.LENGTH);

    m.answer =
        () -> {
          throw new IllegalStateException("connection reset");
        };
    assertThatThrownBy(() -> summarizer(m, 200_000).summarizeText(session(), "Brief.", 10))
        .isInstanceOf(SummarizationException.class)
        .hasMessage("summarizer test/summarizer failed: connection reset")
        .hasCauseInstanceOf(IllegalStateException.class);
  }

  @Test
  void summarizeText_ofASummarizerWithoutAModel_isItsCheckpointAsMarkdown() {
    Summarizer offline = new ExtractiveSummarizer();
    List<Message> covered = session();
    SummaryText t = offline.summarizeText(covered, "Brief.", 100);
    assertThat(t.text()).isEqualTo(offline.summarize(covered, null, "Brief.").render().strip());
    assertThat(t.text()).contains("InvoiceService");
    assertThat(t.usage()).isEqualTo(SummaryText.NO_USAGE);
  }
}
