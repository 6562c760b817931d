package dev.compactor.replay.strategy;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.ManualCompactor;
import dev.compactor.core.policy.PendingCalls;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.replay.NamedReplayStrategy;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;
import java.util.List;

/**
 * One compaction strategy on its own, fired by the budget: after a turn whose context reaches the
 * budget (and has no pending tool calls), the strategy compacts the conversation exactly as {@code
 * /compact <name>} does ({@link ManualCompactor}: {@code trim} toward 70 % of the budget, {@code
 * summarize} with the budget as its limit and the default recent tail, any other strategy with the
 * budget as its limit). No reminder, no fallback from one strategy to another: that is the {@code
 * auto} policy's job.
 */
public abstract class BudgetTriggeredStrategy extends NamedReplayStrategy {
  /**
   * @param name the registered {@link ContextProvider} name, also the replay strategy's name
   * @param description one line for reports
   */
  protected BudgetTriggeredStrategy(String name, String description) {
    super(name, description);
  }

  @Override
  public final ReplaySession start(ReplaySetup setup) {
    ContextProvider provider =
        name().equals(SummarizeProvider.NAME)
            ? Summaries.counted(setup)
            : ProviderRegistry.global().get(name());
    CompactionListener listener =
        r -> setup.events().compacted(r.strategy(), r.tokensBefore(), r.tokensAfter());
    ManualCompactor compactor = new ManualCompactor(n -> provider, setup.clock(), listener);
    PolicyContext ctx =
        PolicyContext.of(
            setup.model(),
            setup.budgetTokens(),
            CompressionConfig.builder().counter(setup.counter()).build());
    return new ConversationSession() {
      @Override
      public void afterTurn() {
        List<Message> active = conversation.activeMessages();
        if (PendingCalls.any(active)
            || setup.counter().countMessages(active) < setup.budgetTokens()) {
          return;
        }
        CompactionOutcome o = compactor.compact(conversation, name(), null, ctx);
        if (o instanceof CompactionOutcome.Failed f) {
          setup.events().failed(f.strategy(), f.reason());
        }
      }
    };
  }
}
