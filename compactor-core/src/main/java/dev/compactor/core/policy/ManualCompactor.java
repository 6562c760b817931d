package dev.compactor.core.policy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.Conversation;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Compaction on request ({@code /compact}, {@code compactor compact}, the API). Unlike a plain
 * rewrite, it makes a new view: the master log stays complete.
 *
 * <ul>
 *   <li>{@code trim}: rule-based, toward 70 % of the budget; says when nothing needs compacting and
 *       suggests {@code summarize} when it saved little;
 *   <li>{@code summarize}: the checkpoint summary with the project's {@code compact_instructions}
 *       followed by the inline instructions;
 *   <li>any other registered strategy by name (e.g. {@code mask}), with the budget as its limit.
 * </ul>
 *
 * Thread-safety: as the conversation it works on.
 */
public final class ManualCompactor {
  private final Function<String, ContextProvider> providers;
  private final double trimTargetRatio;
  private final double lowSavings;
  private final Clock clock;
  private final CompactionApplier applier;

  /**
   * @param providers strategy lookup by name (e.g. {@code registry::get}); throws for unknown names
   * @param clock time source
   * @param listener receives every compaction (e.g. the journal)
   */
  public ManualCompactor(
      Function<String, ContextProvider> providers, Clock clock, CompactionListener listener) {
    this.providers = Objects.requireNonNull(providers, "providers");
    this.trimTargetRatio = AutoCompactor.Settings.DEFAULTS.trimTargetRatio();
    this.lowSavings = AutoCompactor.Settings.DEFAULTS.minSavings();
    this.clock = Objects.requireNonNull(clock, "clock");
    this.applier = new CompactionApplier(clock, Objects.requireNonNull(listener, "listener"));
  }

  /** Runs a parsed {@code /compact} command. */
  public CompactionOutcome compact(
      Conversation conversation, ManualCompaction command, PolicyContext ctx) {
    return compact(conversation, command.strategy(), command.instructions().orElse(null), ctx);
  }

  /**
   * Compacts the conversation with the named strategy.
   *
   * @param instructions inline instructions (summarize only), or null
   * @throws CompactorException when the strategy name is unknown
   */
  public CompactionOutcome compact(
      Conversation conversation, String strategy, String instructions, PolicyContext ctx) {
    ContextProvider provider = providers.apply(strategy);
    List<Message> active = conversation.activeMessages();
    TokenCounter counter = ctx.base().counter();
    long tokens = counter.countMessages(active);
    long budget = ctx.budgetTokens();
    if (PendingCalls.any(active)) {
      return new CompactionOutcome.NotNeeded(
          "tool calls are pending; compact after their results arrive", tokens, budget);
    }
    Instant started = clock.instant();
    boolean summary = provider.name().equals(ManualCompaction.SUMMARIZE);
    CompressionConfig cfg;
    if (summary) {
      cfg = AutoCompactor.summaryConfig(ctx, joinInstructions(ctx, instructions));
    } else {
      double ratio = provider.name().equals(ManualCompaction.TRIM) ? trimTargetRatio : 1.0;
      cfg = ctx.base().toBuilder().limit(ctx.limit()).trimTargetRatio(ratio).build();
    }
    CompactionResult r;
    try {
      r = provider.compress(active, cfg);
    } catch (CompactorException e) {
      String what = summary ? "Failed to generate the summary: " : "Compaction failed: ";
      return new CompactionOutcome.Failed(provider.name(), what + e.getMessage(), tokens, budget);
    }
    if (r.messages().equals(active)) {
      return new CompactionOutcome.NotNeeded(
          tokens <= budget
              ? String.format(
                  "no compaction needed: %,d tokens, within the budget of %,d", tokens, budget)
              : String.format(
                  "%s found nothing to compact (%,d tokens, budget %,d); try /compact summarize",
                  provider.name(), tokens, budget),
          tokens,
          budget);
    }
    AppliedCompaction report;
    try {
      report =
          applier.apply(
              conversation, active, r, provider.name(), Trigger.MANUAL, tokens, started, counter);
    } catch (CompactorException e) {
      return new CompactionOutcome.Failed(provider.name(), e.getMessage(), tokens, budget);
    }
    Optional<String> suggestion = Optional.empty();
    if (!summary && report.savedFraction() < lowSavings) {
      suggestion =
          Optional.of(
              String.format(
                  "%s saved only %.1f %%; /compact summarize would shrink the conversation more",
                  provider.name(), 100 * report.savedFraction()));
    }
    return new CompactionOutcome.Compacted(report, tokens, budget, suggestion);
  }

  private static String joinInstructions(PolicyContext ctx, String inline) {
    String project = ctx.compactInstructions().orElse(null);
    if (project == null) {
      return inline;
    }
    if (inline == null || inline.isBlank()) {
      return project;
    }
    return project + "\n\n" + inline;
  }
}
