package dev.compactor.core.compaction.mask;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ViewBuilder;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.ViewValidator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replays a generated 500-step agent session turn by turn, as the post-turn policy would, and
 * compares no compaction, masking a sliding window on every turn, and {@code mask} as designed
 * (fires at the limit, moves in batches of 10). Cost is in units of uncached input tokens with
 * prompt caching priced as Anthropic does: the prefix shared with the previous request is read at
 * 0.1, the rest is written at 1.25.
 */
class MaskSessionSimulationTest {
  private static final int LIMIT = 150_000;
  private static List<Message> session;

  @BeforeAll
  static void generate() {
    session = ConversationGenerator.generate(42, ConversationGenerator.Options.agentSession(500));
  }

  /** What a replay measured. */
  record Run(
      String name,
      int requests,
      int compactions,
      int prefixBreaks,
      long peakTokens,
      long finalTokens,
      long sentTokens,
      double cachedCost) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "%-22s requests %d, compactions %3d, prefix changes %3d, peak %,9d, final %,9d,"
              + " sent %,11d tokens, cost with caching %,12.0f",
          name,
          requests,
          compactions,
          prefixBreaks,
          peakTokens,
          finalTokens,
          sentTokens,
          cachedCost);
    }
  }

  /** Replays the session; a null config never compacts. */
  private static Run replay(String name, CompressionConfig config, boolean everyTurn) {
    MaskProvider mask = new MaskProvider();
    TokenCounter counter = CompressionConfig.builder().build().counter();
    InMemoryConversation c = new InMemoryConversation(new InMemoryMasterLog());
    List<Message> previous = List.of();
    int requests = 0;
    int compactions = 0;
    int breaks = 0;
    long peak = 0;
    long sent = 0;
    double cost = 0;
    for (int i = 0; i < session.size(); i++) {
      Message m = session.get(i);
      if (m.role() == Role.ASSISTANT) {
        List<Message> request = c.activeMessages();
        int common = 0;
        while (common < previous.size()
            && common < request.size()
            && previous.get(common).equals(request.get(common))) {
          common++;
        }
        if (common < previous.size()) {
          breaks++;
        }
        long total = counter.countMessages(request);
        long cached = counter.countMessages(request.subList(0, common));
        cost += 0.1 * cached + 1.25 * (total - cached);
        sent += total;
        peak = Math.max(peak, total);
        requests++;
        previous = request;
      }
      c.append(m);
      boolean stepDone = i + 1 == session.size() || session.get(i + 1).role() != Role.TOOL;
      if (config != null && stepDone) {
        List<Message> active = c.activeMessages();
        if (everyTurn || mask.shouldCompress(active, config)) {
          CompactionResult r = mask.compress(active, config);
          if (!r.provenance().isEmpty()) {
            assertThat(new ViewValidator().validate(r.messages())).isEmpty();
            c.switchTo(ViewBuilder.build(c.activeView(), active, r, c.nextViewId()));
            compactions++;
          }
        }
      }
    }
    return new Run(
        name,
        requests,
        compactions,
        breaks,
        peak,
        counter.countMessages(c.activeMessages()),
        sent,
        cost);
  }

  @Test
  void oneShot_on500Steps_masksAllButTheLastTenOutputs() {
    CompressionConfig cfg = CompressionConfig.builder().limit(LIMIT).build();
    long before = cfg.counter().countMessages(session);
    CompactionResult r = new MaskProvider().compress(session, cfg);
    long after = cfg.counter().countMessages(r.messages());
    System.out.printf(
        Locale.ROOT,
        "mask one-shot on %d messages: %,d -> %,d tokens (%.1f %%), %d outputs masked%n",
        session.size(),
        before,
        after,
        100.0 * after / before,
        r.provenance().size());
    assertThat(after).isLessThan(before / 5);
    assertThat(r.messages()).hasSameSizeAs(session);
  }

  @Test
  void batchedMasking_changesThePrefixRarely_andCostsLessThanPerTurnMasking() {
    Run none = replay("no compaction", null, false);
    Run perTurn =
        replay(
            "per-turn sliding mask",
            CompressionConfig.builder().extraConfig(Map.of("batch", 1)).build(),
            true);
    Run batched =
        replay("mask (limit, batch 10)", CompressionConfig.builder().limit(LIMIT).build(), false);
    System.out.println(none);
    System.out.println(perTurn);
    System.out.println(batched);

    assertThat(batched.compactions()).isPositive().isEqualTo(batched.prefixBreaks());
    assertThat(batched.prefixBreaks()).isLessThan(perTurn.prefixBreaks() / 5);
    assertThat(batched.cachedCost()).isLessThan(perTurn.cachedCost()).isLessThan(none.cachedCost());
    assertThat(batched.sentTokens()).isLessThan(none.sentTokens() / 2);
  }
}
