package dev.compactor.core.policy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.internal.CompactionApplier;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.Conversation;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
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
 *       suggests {@code summarize} when it saved little or the view stays over the budget;
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
   * <p>A pending final step (an assistant tool call whose results have not arrived, as at the end
   * of most recorded agent trajectories) does not block a manual compaction: it is kept verbatim
   * and everything before it is compacted; a strategy that would rewrite it is refused. (The
   * automatic policy waits for the results instead.)
   *
   * <p>Outcomes: {@code Compacted} when a smaller view is active (with a {@link Shortfall} when it
   * is still over the budget); {@code Limited} when the conversation is over the budget and the
   * strategy could not make it smaller; {@code NotNeeded} only within the budget; {@code Failed}
   * when the strategy failed or produced an invalid view. A strategy's view that is not smaller
   * than the current one is never applied.
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
      return new CompactionOutcome.Failed(provider.name(), what + describe(e), tokens, budget);
    }
    List<Message> pendingStep = pendingStep(active);
    if (!pendingStep.isEmpty() && !endsWith(r.messages(), pendingStep)) {
      return new CompactionOutcome.Failed(
          provider.name(),
          "strategy "
              + provider.name()
              + " rewrote the pending final step (a tool call still awaiting its result);"
              + " the view is left as it was",
          tokens,
          budget);
    }
    if (r.messages().equals(active)) {
      if (tokens <= budget) {
        return new CompactionOutcome.NotNeeded(
            String.format(
                "no compaction needed: %,d tokens, within the budget of %,d", tokens, budget),
            tokens,
            budget);
      }
      return limited(
          provider.name(), active, tokens, budget, cfg, Shortfall.Cause.NOTHING_REMOVABLE);
    }
    long after = counter.countMessages(r.messages());
    if (after >= tokens) {
      // Never a larger view called compacted (a checkpoint of little text costs more than it).
      if (tokens <= budget) {
        return new CompactionOutcome.NotNeeded(
            String.format(
                "no compaction needed: %,d tokens, within the budget of %,d; %s would not make the"
                    + " view smaller (%,d tokens)",
                tokens, budget, provider.name(), after),
            tokens,
            budget);
      }
      return limited(
          provider.name(), active, tokens, budget, cfg, Shortfall.Cause.WOULD_NOT_SHRINK);
    }
    AppliedCompaction report;
    try {
      report =
          applier.apply(
              conversation, active, r, provider.name(), Trigger.MANUAL, tokens, started, counter);
    } catch (CompactorException e) {
      return new CompactionOutcome.Failed(provider.name(), describe(e), tokens, budget);
    }
    Optional<String> suggestion = Optional.empty();
    if (!summary && report.savedFraction() < lowSavings) {
      suggestion =
          Optional.of(
              String.format(
                  "%s saved only %.1f %%; /compact summarize would shrink the conversation more",
                  provider.name(), 100 * report.savedFraction()));
    }
    Optional<Shortfall> shortfall = Optional.empty();
    if (report.tokensAfter() > budget) {
      shortfall =
          Optional.of(
              shortfall(
                  provider.name(),
                  conversation.activeMessages(),
                  report.tokensAfter(),
                  budget,
                  cfg,
                  Shortfall.Cause.NOT_ENOUGH_REMOVED));
    }
    return new CompactionOutcome.Compacted(report, tokens, budget, suggestion, shortfall);
  }

  private CompactionOutcome limited(
      String strategy,
      List<Message> view,
      long tokens,
      long budget,
      CompressionConfig cfg,
      Shortfall.Cause cause) {
    return new CompactionOutcome.Limited(
        strategy, shortfall(strategy, view, tokens, budget, cfg, cause), tokens, budget);
  }

  /**
   * Why {@code view} ({@code tokens}, over {@code budget}) stays over the budget after {@code
   * strategy}, and what would get further.
   */
  static Shortfall shortfall(
      String strategy,
      List<Message> view,
      long tokens,
      long budget,
      CompressionConfig cfg,
      Shortfall.Cause cause) {
    TokenCounter counter = cfg.counter();
    boolean summary = strategy.equals(ManualCompaction.SUMMARIZE);
    long own = ProtectedPart.tokens(view, cfg.keepHead(), !summary, counter);
    // What a summary would have to keep: the head, pinned messages and the final step.
    long summaryFloor = summary ? own : ProtectedPart.tokens(view, cfg.keepHead(), false, counter);
    Shortfall.Cause c = own > budget ? Shortfall.Cause.PROTECTED_TOO_LARGE : cause;
    List<Shortfall.Remedy> remedies = new ArrayList<>();
    if (!summary && summaryFloor < budget) {
      remedies.add(new Shortfall.Remedy.OtherStrategy(ManualCompaction.SUMMARIZE));
    }
    // The smallest budget known to hold what this strategy reaches: the protected part when it is
    // the obstacle, else the view as it stands.
    long atLeast = c == Shortfall.Cause.PROTECTED_TOO_LARGE ? own : tokens;
    remedies.add(new Shortfall.Remedy.LargerBudget(Math.max(budget + 1, atLeast)));
    String what =
        switch (c) {
          case PROTECTED_TOO_LARGE ->
              String.format(
                  "what %s keeps verbatim (head, pinned messages,%s final step) is %,d tokens, over the"
                      + " budget of %,d",
                  strategy, summary ? "" : " newest user request,", own, budget);
          case NOTHING_REMOVABLE ->
              String.format(
                  "%s found nothing it may remove or shorten (%,d tokens, budget %,d; %,d tokens are"
                      + " kept verbatim)",
                  strategy, tokens, budget, own);
          case NOT_ENOUGH_REMOVED ->
              String.format(
                  "%s shortened all it may but the view is still %,d tokens, over the budget of %,d"
                      + " (%,d tokens are kept verbatim)",
                  strategy, tokens, budget, own);
          case WOULD_NOT_SHRINK ->
              String.format(
                  "%s would not make the view smaller (%,d tokens, budget %,d); it was not applied",
                  strategy, tokens, budget);
        };
    String reason =
        "over budget: "
            + what
            + "; "
            + remedies.stream()
                .map(Shortfall.Remedy::describe)
                .collect(java.util.stream.Collectors.joining(", or "));
    return new Shortfall(tokens, budget, own, c, reason, remedies);
  }

  /**
   * The pending final step: the newest assistant message with tool calls whose results have not all
   * arrived, and everything after it, when nothing but tool results and uiOnly messages follow it;
   * else empty.
   */
  static List<Message> pendingStep(List<Message> active) {
    for (int i = active.size() - 1; i >= 0; i--) {
      Message m = active.get(i);
      if (m.uiOnly() || m.role() == dev.compactor.core.message.Role.TOOL) {
        continue;
      }
      if (m.hasToolCalls() && PendingCalls.any(active.subList(i, active.size()))) {
        List<Message> step = new ArrayList<>();
        for (Message x : active.subList(i, active.size())) {
          if (!x.uiOnly()) {
            step.add(x);
          }
        }
        return step;
      }
      return List.of();
    }
    return List.of();
  }

  private static boolean endsWith(List<Message> view, List<Message> step) {
    List<Message> visible = new ArrayList<>();
    for (Message m : view) {
      if (!m.uiOnly()) {
        visible.add(m);
      }
    }
    int off = visible.size() - step.size();
    return off >= 0 && visible.subList(off, visible.size()).equals(step);
  }

  /** The exception's message, or its type when it has none. */
  static String describe(Throwable e) {
    return dev.compactor.core.compaction.summary.SummarizationException.describe(e);
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
