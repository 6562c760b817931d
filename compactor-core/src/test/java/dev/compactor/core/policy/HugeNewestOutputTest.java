package dev.compactor.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.compaction.fixtures.RecordingArchive;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.ViewValidator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A user message, one command and its 20,000-token output, the last message, over the budget: an
 * output that alone exceeds the budget is truncated even in the final step.
 */
class HugeNewestOutputTest {
  private static final TokenCounter COUNTER = TokenCounters.estimate();
  private static final int BUDGET = 8_000;
  private final RecordingArchive archive = new RecordingArchive();
  private final List<AppliedCompaction> journal = new ArrayList<>();

  private static List<Message> session() {
    return new Conv()
        .user("Show me the build log.")
        .tool("shell", "{\"command\":\"cat build.log\"}", Conv.lines("build step ", 1540))
        .build();
  }

  private PolicyContext ctx() {
    return PolicyContext.of(
        "test/model",
        BUDGET,
        CompressionConfig.builder().counter(COUNTER).archive(archive).build());
  }

  private InMemoryConversation conversation() {
    InMemoryConversation c = new InMemoryConversation(new InMemoryMasterLog());
    session().forEach(c::append);
    return c;
  }

  @Test
  void theSessionIsAsDescribed() {
    assertThat(COUNTER.countMessage(session().get(2))).isBetween(19_000, 23_000);
  }

  @Test
  void trim_truncatesTheFinalOutput_keepingHeadAndTail_recoverable_namingTheCommand() {
    List<Message> m = session();
    CompressionConfig c =
        CompressionConfig.builder()
            .counter(COUNTER)
            .archive(archive)
            .limit(BUDGET)
            .trimTargetRatio(0.7)
            .build();
    assertThat(new TrimProvider().estimateSavings(m, c).ratio()).isGreaterThan(0.5);
    List<Message> out = new TrimProvider().compress(m, c).messages();
    String cut = out.get(2).content();
    assertThat(cut)
        .startsWith("build step 00000 lorem ipsum")
        .contains("tokens truncated")
        .contains("of the output of (shell {\"command\":\"cat build.log\"})")
        .contains("saved#1 of m2")
        .endsWith("build step 01539 lorem ipsum dolor sit\n");
    assertThat(COUNTER.countMessages(out)).isLessThanOrEqualTo((long) (0.7 * BUDGET));
    assertThat(archive.saved.get(0).content()).contains("build step 01000 lorem ipsum");
    assertThat(new ViewValidator().validate(out)).isEmpty();
  }

  @Test
  void trim_leavesAnOutputUnderTheLimit_inTheFinalStep_verbatim() {
    List<Message> m = session();
    long tokens = COUNTER.countMessage(m.get(2));
    CompressionConfig c =
        CompressionConfig.builder()
            .counter(COUNTER)
            .archive(archive)
            .limit((int) tokens)
            .trimTargetRatio(0.7)
            .build();
    assertThat(new TrimProvider().compress(m, c).messages().get(2)).isEqualTo(m.get(2));
  }

  @Test
  void manualTrim_reachesTheBudget() {
    InMemoryConversation c = conversation();
    ManualCompactor manual =
        new ManualCompactor(
            n -> dev.compactor.core.compaction.ProviderRegistry.global().get(n),
            java.time.Clock.systemUTC(),
            journal::add);
    CompactionOutcome o = manual.compact(c, "trim", null, ctx());
    assertThat(((CompactionOutcome.Compacted) o).withinBudget()).isTrue();
  }

  @Test
  void automaticPolicy_reachesTheBudget_insteadOfAFailedSummary() {
    InMemoryConversation c = conversation();
    AutoCompactor auto = AutoCompactor.standard(c, journal::add);
    CompactionOutcome o = auto.afterTurn(ctx());
    CompactionOutcome.Compacted done = (CompactionOutcome.Compacted) o;
    assertThat(done.report().strategy()).isEqualTo("trim");
    assertThat(done.report().tokensAfter()).isLessThan(BUDGET);
    assertThat(auto.latched()).isFalse();
  }
}
