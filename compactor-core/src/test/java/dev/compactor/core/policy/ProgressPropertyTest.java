package dev.compactor.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.fixtures.RecordingArchive;
import dev.compactor.core.message.Message;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.ViewValidator;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * No conversation ends up where no strategy can make progress: over generated conversations (tool
 * loops, parallel calls, thinking, pinned messages, huge outputs, pending final calls) and tiny
 * budgets, every manual compaction either makes the view smaller (and valid, saying whether it is
 * within the budget), or says why it cannot and what would get further; never {@code not-needed}
 * over the budget, never a failure.
 */
class ProgressPropertyTest {
  private static final TokenCounter COUNTER = TokenCounters.estimate();
  private static final double[] BUDGET_SHARES = {0.02, 0.1, 0.3};

  @Test
  void everyGeneratedConversation_makesProgress_orStatesItsLimitation() {
    ViewValidator validator = new ViewValidator();
    int progressed = 0;
    int limited = 0;
    for (long seed = 0; seed < 60; seed++) {
      ConversationGenerator.Options o =
          ConversationGenerator.Options.stress(1 + (int) (seed % 25))
              .withPendingLastCall(seed % 3 == 0);
      List<Message> messages = ConversationGenerator.generate(seed, o);
      long tokens = COUNTER.countMessages(messages);
      for (double share : BUDGET_SHARES) {
        long budget = Math.max(1, (long) (tokens * share));
        java.util.List<Shortfall.Cause> causes = new java.util.ArrayList<>();
        for (String strategy : List.of("trim", "summarize")) {
          InMemoryConversation c = new InMemoryConversation(new InMemoryMasterLog());
          messages.forEach(c::append);
          ManualCompactor manual =
              new ManualCompactor(ProviderRegistry.global()::get, Clock.systemUTC(), r -> {});
          PolicyContext ctx =
              PolicyContext.of(
                  "test/model",
                  budget,
                  CompressionConfig.builder()
                      .counter(COUNTER)
                      .archive(new RecordingArchive())
                      .build());
          CompactionOutcome out = manual.compact(c, strategy, null, ctx);
          String what = "seed " + seed + ", budget " + budget + " of " + tokens + ", " + strategy;
          assertThat(out).as(what).isNotInstanceOf(CompactionOutcome.Failed.class);
          assertThat(out).as(what).isNotInstanceOf(CompactionOutcome.NotNeeded.class);
          if (out instanceof CompactionOutcome.Compacted done) {
            progressed++;
            assertThat(done.report().tokensAfter()).as(what).isLessThan(tokens);
            assertThat(validator.validate(c.activeMessages())).as(what).isEmpty();
            assertThat(done.withinBudget())
                .as(what)
                .isEqualTo(done.report().tokensAfter() <= budget);
            done.shortfall().ifPresent(s -> assertThat(s.remedies()).as(what).isNotEmpty());
          } else {
            limited++;
            Shortfall s = ((CompactionOutcome.Limited) out).shortfall();
            causes.add(s.cause());
            assertThat(s.reason()).as(what).startsWith("over budget");
            assertThat(s.remedies()).as(what).isNotEmpty();
            assertThat(c.views()).as(what).hasSize(1);
          }
        }
        if (causes.size() == 2) {
          // Neither strategy could do anything: only because what they must keep is too large.
          assertThat(causes)
              .as("seed %d, budget %d", seed, budget)
              .containsOnly(Shortfall.Cause.PROTECTED_TOO_LARGE);
        }
      }
    }
    assertThat(progressed).isGreaterThan(10 * limited);
  }
}
