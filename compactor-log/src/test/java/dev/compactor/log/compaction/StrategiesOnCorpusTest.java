package dev.compactor.log.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ViewBuilder;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.trim.SavingsEstimate;
import dev.compactor.core.compaction.trim.TrimOutcome;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.log.imports.Importers;
import dev.compactor.testkit.corpus.SharedCorpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The built-in strategies on the benchmark workload ({@code gptme-2000}: 2,000 messages, 1.87 M
 * cl100k tokens) and on a generated 500-turn session, with a 180k-token budget (a 200k-window
 * model) and the automatic policy's 0.7 trim target. Prints tokens before and after and the time
 * taken (informative only: speed is measured by the JMH benchmarks, never asserted here). Skipped
 * when the corpus is absent.
 */
class StrategiesOnCorpusTest {
  private static final TokenCounter COUNTER = TokenCounters.cl100k();
  private static final int BUDGET = 180_000;

  private static Path corpus() {
    for (String c :
        List.of(
            "../shared/corpus/synthetic/gptme-2000.conversation.jsonl.gz",
            "../../shared/corpus/synthetic/gptme-2000.conversation.jsonl.gz")) {
      if (Files.isRegularFile(Path.of(c))) {
        return Path.of(c);
      }
    }
    return null;
  }

  @Test
  void gptme2000_trimAndSummarize_stayValid_andReportWhatTheyReached() {
    Path file = corpus();
    SharedCorpus.assumePresent(
        file != null, "StrategiesOnCorpusTest: the gptme-2000 corpus file was not found");
    List<Message> messages = Importers.read(file).conversations().get(0).messages();
    run("gptme-2000", messages);
  }

  @Test
  void generated500Turns_trimAndSummarize_stayValid_andReportWhatTheyReached() {
    run(
        "generated 500 turns",
        ConversationGenerator.generate(42, ConversationGenerator.Options.agentSession(500)));
  }

  private static void run(String name, List<Message> messages) {
    long before = COUNTER.countMessages(messages); // fills the count cache, as in a live session
    CompressionConfig auto =
        CompressionConfig.builder()
            .limit(BUDGET)
            .trimTargetRatio(0.7)
            .keepHead(2)
            .counter(COUNTER)
            .build();
    TrimProvider trim = new TrimProvider();
    SavingsEstimate estimate = trim.estimateSavings(messages, auto);

    TrimOutcome o = null;
    long trimNanos = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) { // best of 5: the first runs include JIT compilation
      long t0 = System.nanoTime();
      o = trim.trim(messages, auto);
      trimNanos = Math.min(trimNanos, System.nanoTime() - t0);
    }
    TrimOutcome full = trim.trim(messages, auto.toBuilder().limit(null).build());

    SummarizeProvider summarize = new SummarizeProvider();
    CompactionResult s = null;
    long sumNanos = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      long t0 = System.nanoTime();
      s = summarize.compress(messages, auto.toBuilder().trimTargetRatio(1.0).build());
      sumNanos = Math.min(sumNanos, System.nanoTime() - t0);
    }
    CompactionResult sumManual =
        summarize.compress(
            messages,
            auto.toBuilder()
                .limit(null)
                .extraConfig(Map.of(SummarizeProvider.KEEP_RECENT_TOKENS, 20_000))
                .build());

    System.out.printf(
        Locale.ROOT,
        "%n== %s: %d messages, %,d tokens (cl100k), budget %,d, trim target %,d%n"
            + "estimate: saves %,d tokens (%.1f%%): %d stale, %d large, %d compressible%n"
            + "trim (auto): %,d -> %,d tokens, reached=%s, stubbed %d, truncated %d, compressed %d,"
            + " best of 5: %.1f ms%n"
            + "trim (no limit): %,d -> %,d tokens%n"
            + "summarize (limit %,d): %,d -> %,d tokens, %d messages, best of 3: %.1f ms%n"
            + "summarize (no limit, keep 20k): %,d -> %,d tokens, %d messages%n"
            + "limitations: trim %s%n             summarize %s%n",
        name,
        messages.size(),
        before,
        BUDGET,
        auto.target(),
        estimate.savedTokens(),
        100 * estimate.ratio(),
        estimate.staleOutputs(),
        estimate.largeOutputs(),
        estimate.compressibleMessages(),
        o.tokensBefore(),
        o.tokensAfter(),
        o.targetReached(),
        o.stubbed(),
        o.truncated(),
        o.compressed(),
        trimNanos / 1e6,
        full.tokensBefore(),
        full.tokensAfter(),
        BUDGET,
        before,
        COUNTER.countMessages(s.messages()),
        s.messages().size(),
        sumNanos / 1e6,
        before,
        COUNTER.countMessages(sumManual.messages()),
        sumManual.messages().size(),
        o.result().limitations(),
        s.limitations());

    ViewValidator v = new ViewValidator();
    assertThat(v.validate(o.result().messages())).isEmpty();
    assertThat(v.validate(s.messages())).isEmpty();
    assertThat(v.validate(sumManual.messages())).isEmpty();
    assertThat(
            o.targetReached()
                || o.result().limitations().stream()
                    .anyMatch(l -> l.startsWith("target not reached")))
        .isTrue();
    assertThat(COUNTER.countMessages(s.messages())).isLessThanOrEqualTo(BUDGET);
    InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog(messages));
    conv.switchTo(
        ViewBuilder.build(conv.activeView(), conv.activeMessages(), s, conv.nextViewId()));
    assertThat(conv.activeMessages()).isEqualTo(s.messages());
  }
}
