package dev.compactor.server.proxy;

import dev.compactor.core.Compactor;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.CompactionOutcome;
import java.util.List;
import java.util.Objects;

/**
 * When and how deep the proxy compacts a conversation. The trigger is the {@link Compactor}'s: a
 * request at or over the conversation's budget. The compaction then aims at a lower budget, {@link
 * #target()} × the budget, with the same default policy (batched masking when that is enough, else
 * a trim toward 70 %, else a summary whose verbatim tail is at most 35 %), so the view is rewritten
 * less often. Between compactions the proxy sends its stored view plus the client's new messages
 * byte for byte, so every request until the next compaction reads the whole view from the
 * provider's prompt cache; a deeper compaction costs a little recall and input per request and
 * saves the rewrites (a rewrite is billed as uncached input, at 125 % with Anthropic).
 *
 * <p>Below the budget, the default policy's cost planner may still mask old tool outputs early,
 * when the tokens it saves on the calls it expects outweigh the cached prefix it rewrites; with
 * {@link #plansBelowBudget()} the proxy gives it that chance on every request it could act on
 * ({@link dev.compactor.core.policy.CostPlanner#mayMaskEarly}), else only when it runs the
 * compactor anyway (a conversation's first request, the one after a compaction). The replay through
 * the proxy measures all of it ({@code docs/proxy.md}, "Replay through the proxy").
 *
 * <p>Immutable and thread-safe.
 */
public final class ProxyPolicy {
  /**
   * The target the proxy uses: measured on the mini-swe-agent corpus (see {@code docs/proxy.md}).
   */
  public static final double DEFAULT_TARGET = 0.6;

  /** The proxy's policy: {@link #DEFAULT_TARGET}, the library's index share, planning on. */
  public static final ProxyPolicy DEFAULT = new ProxyPolicy(DEFAULT_TARGET, null, true);

  private final double target;
  private final Double indexShare;
  private final boolean plansBelowBudget;

  private ProxyPolicy(double target, Double indexShare, boolean plansBelowBudget) {
    this.target = target;
    this.indexShare = indexShare;
    this.plansBelowBudget = plansBelowBudget;
  }

  /**
   * A policy that compacts toward {@code target} × the budget, as {@link #DEFAULT} otherwise.
   *
   * @param target in (0, 1]; 1 compacts toward the budget itself, as the front door does
   * @throws IllegalArgumentException when {@code target} is outside (0, 1]
   */
  public static ProxyPolicy of(double target) {
    if (!(target > 0 && target <= 1)) {
      throw new IllegalArgumentException(
          "the proxy's compaction target must be in (0, 1] of the budget, got " + target);
    }
    return new ProxyPolicy(target, DEFAULT.indexShare, DEFAULT.plansBelowBudget);
  }

  /**
   * This policy with its summaries' identifier index within {@code share} of the budget they aim at
   * ({@link Compactor.Builder#identifierIndexShare}); null for the library's default share.
   *
   * @throws IllegalArgumentException when {@code share} is outside [0, 1]
   */
  public ProxyPolicy withIndexShare(Double share) {
    if (share != null && !(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException(
          "the proxy's identifier index share must be in [0, 1], got " + share);
    }
    return new ProxyPolicy(target, share, plansBelowBudget);
  }

  /** This policy with the cost planner run below the budget on every request, or not. */
  public ProxyPolicy withPlanningBelowBudget(boolean on) {
    return new ProxyPolicy(target, indexShare, on);
  }

  /** The fraction of the budget a compaction aims at. */
  public double target() {
    return target;
  }

  /** The identifier index's share of the budget in a summary, or null for the library's default. */
  public Double indexShare() {
    return indexShare;
  }

  /**
   * Whether every request the cost planner could mask early below the budget runs the compactor
   * ({@link dev.compactor.core.policy.CostPlanner#mayMaskEarly} on the previous request's count
   * plus the new messages); if not, or where the planner cannot act, a request known to be below
   * the budget (from that count) is sent as it stands without running it.
   */
  public boolean plansBelowBudget() {
    return plansBelowBudget;
  }

  /** The budget a compaction aims at: {@link #target()} × {@code budgetTokens}, at least 1. */
  public long targetTokens(long budgetTokens) {
    return Math.max(1, Math.round(target * budgetTokens));
  }

  /**
   * The compactor a compaction uses: {@code builder}, the one {@code trigger} was built from (same
   * model, counter, summarizer), with {@link #targetTokens} of {@code trigger}'s budget as its
   * budget and {@link #indexShare()}, when set, as its summaries' identifier index share; null when
   * the target is the budget itself. Changes {@code builder}'s budget and index share.
   */
  public Compactor deeper(Compactor.Builder builder, Compactor trigger) {
    if (target >= 1) {
      return null;
    }
    long lower = targetTokens(trigger.budget().tokens());
    builder.budget(BudgetSetting.of(Long.toString(lower), "the proxy's compaction target"));
    if (indexShare != null) {
      builder.identifierIndexShare(indexShare);
    }
    return builder.build();
  }

  /**
   * Compacts {@code messages} when they reach {@code trigger}'s budget: with {@code deeper} when
   * that compacts, else as {@code trigger} alone does. Below the budget, or while tool calls are
   * pending, {@code trigger}'s outcome (not needed, or the cost planner's early masking).
   *
   * @param trigger the conversation's model and budget
   * @param deeper from {@link #deeper}, or null to compact with {@code trigger}
   * @param messages the conversation as it would be sent, oldest first
   * @return what to send; never null
   */
  public Compactor.Result compact(Compactor trigger, Compactor deeper, List<Message> messages) {
    Objects.requireNonNull(trigger, "trigger");
    if (deeper == null || trigger.counter().countMessages(messages) < trigger.budget().tokens()) {
      return trigger.compact(messages); // below the budget (counts are cached)
    }
    // At the budget: one compaction, toward the target; the trigger's own only when that does
    // not compact (e.g. it failed), so a long conversation is not compacted twice.
    Compactor.Result deep = deeper.compact(messages);
    return deep.outcome() instanceof CompactionOutcome.Compacted ? deep : trigger.compact(messages);
  }

  @Override
  public String toString() {
    return "ProxyPolicy[target="
        + target
        + ", indexShare="
        + indexShare
        + ", plansBelowBudget="
        + plansBelowBudget
        + "]";
  }
}
