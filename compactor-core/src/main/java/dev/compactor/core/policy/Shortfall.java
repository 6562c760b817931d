package dev.compactor.core.policy;

import java.util.List;
import java.util.Objects;

/**
 * Why a compaction left the conversation over its budget, and what would get further. Carried by
 * {@link CompactionOutcome.Limited} (nothing was applied) and by {@link
 * CompactionOutcome.Compacted#shortfall()} (a new view is active but still over the budget), as
 * data a front end prints: the {@link #reason()} sentence, and each {@link Remedy} in its own terms
 * (a command-line front end names its options, e.g. {@code --strategy summarize} or {@code
 * --context-budget 48000}).
 *
 * @param tokens context tokens of the view that stays active (after the compaction when one was
 *     applied, else as it was)
 * @param budget the budget it was compared with
 * @param protectedTokens tokens of what the strategy keeps verbatim in that view: the head (leading
 *     system messages and {@code keepHead}), pinned messages, the final step (a pending tool call
 *     included) and, for strategies other than {@code summarize}, the newest user request
 * @param cause the main reason
 * @param reason one sentence for people, with the figures
 * @param remedies what would get further, most promising first; never empty
 */
public record Shortfall(
    long tokens,
    long budget,
    long protectedTokens,
    Cause cause,
    String reason,
    List<Remedy> remedies) {

  public Shortfall {
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(reason, "reason");
    remedies = List.copyOf(Objects.requireNonNull(remedies, "remedies"));
    if (remedies.isEmpty()) {
      throw new IllegalArgumentException("a shortfall names at least one remedy");
    }
  }

  /** Tokens over the budget (at least 1). */
  public long overBy() {
    return Math.max(1, tokens - budget);
  }

  /** Why the budget was not reached. */
  public enum Cause {
    /**
     * What the strategy must keep verbatim (head, pinned messages, newest user request, final step)
     * alone exceeds the budget.
     */
    PROTECTED_TOO_LARGE,
    /** The strategy found nothing it may remove or shorten. */
    NOTHING_REMOVABLE,
    /** The strategy shortened what it may, but not enough. */
    NOT_ENOUGH_REMOVED,
    /** The strategy's view would not have been smaller than the current one; it was not applied. */
    WOULD_NOT_SHRINK;

    /** Lower-case name with dashes, for JSON and journals (e.g. {@code protected-too-large}). */
    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /** Something that would get the conversation further toward its budget. */
  public sealed interface Remedy permits Remedy.OtherStrategy, Remedy.LargerBudget {
    /** One phrase for people, without front-end syntax (e.g. "try the summarize strategy"). */
    String describe();

    /**
     * Another strategy can reduce what this one cannot (e.g. {@code summarize} after a trim).
     *
     * @param strategy the strategy's registered name
     */
    record OtherStrategy(String strategy) implements Remedy {
      public OtherStrategy {
        Objects.requireNonNull(strategy, "strategy");
      }

      @Override
      public String describe() {
        return "try the " + strategy + " strategy";
      }
    }

    /**
     * A budget of at least {@code tokens} would hold the view this strategy can reach.
     *
     * @param tokens the smallest budget that would do
     */
    record LargerBudget(long tokens) implements Remedy {
      @Override
      public String describe() {
        return String.format("use a context budget of at least %,d tokens", tokens);
      }
    }
  }
}
