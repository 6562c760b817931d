package dev.compactor.log.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.OutputArchive;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.log.policy.PolicyReplay.Event;
import dev.compactor.log.policy.PolicyReplay.Scenario;
import dev.compactor.log.policy.PolicyReplay.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The automatic policy on thousands of generated agent conversations (parallel tool calls, thinking
 * blocks, pinned messages, pending last calls, huge outputs, unicode), each replayed message by
 * message on an {@link InMemoryConversation} at a small budget, with every invariant of {@link
 * PolicyReplay} checked after every message. A failure names the seed and the message; rerun one
 * seed with {@code -Dcompactor.property.seed=N}, or more seeds with {@code
 * -Dcompactor.property.seeds=N} (default 2,000).
 */
class AutoCompactorPropertyTest {
  private static final int SEEDS = Integer.getInteger("compactor.property.seeds", 2000);
  private static final Long ONLY = Long.getLong("compactor.property.seed");

  @Test
  void autoPolicy_keepsEveryInvariant_afterEveryTurn_ofThousandsOfGeneratedConversations() {
    long from = ONLY == null ? 0 : ONLY;
    long to = ONLY == null ? SEEDS : ONLY + 1;
    Stats total = new Stats();
    long t0 = System.nanoTime();
    for (long seed = from; seed < to; seed++) {
      replay(Scenario.of(seed), total);
    }
    System.out.printf(
        Locale.ROOT,
        "auto policy property: %d conversations, %s, %.1f s%n",
        to - from,
        total,
        (System.nanoTime() - t0) / 1e9);
    if (ONLY == null) {
      // The budgets are chosen so that every branch of the policy is taken many times.
      for (Event e :
          List.of(
              Event.REMINDED,
              Event.TRIMMED,
              Event.SUMMARIZED,
              Event.FAILED,
              Event.LATCHED_TRIM_REJECTED,
              Event.PENDING)) {
        assertThat(total.get(e)).as("%s over %d seeds", e, SEEDS).isGreaterThan(SEEDS / 100);
      }
    }
  }

  private static void replay(Scenario scenario, Stats stats) {
    InMemoryConversation conversation = new InMemoryConversation(new InMemoryMasterLog());
    List<AppliedCompaction> journal = new ArrayList<>();
    PolicyReplay.ReplayClock clock = new PolicyReplay.ReplayClock();
    AutoCompactor auto = PolicyReplay.policy(conversation, scenario, clock.clock(), journal::add);
    PolicyContext ctx = scenario.context(OutputArchive.NONE);
    PolicyReplay replay = new PolicyReplay(conversation, scenario, journal, stats);
    List<Message> messages = scenario.messages();
    for (int i = 0; i < messages.size(); i++) {
      CompactionOutcome o =
          replay.step(
              auto,
              messages,
              i,
              clock,
              ctx,
              scenario.toString(),
              " (rerun with -Dcompactor.property.seed=" + scenario.seed() + ")");
      if (ONLY != null) { // one seed: show what the policy did
        System.out.printf(Locale.ROOT, "%3d %-8s %s%n", i, messages.get(i).id(), o);
      }
    }
  }
}
