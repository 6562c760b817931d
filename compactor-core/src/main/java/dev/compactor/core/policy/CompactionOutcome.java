package dev.compactor.core.policy;

import dev.compactor.core.message.Message;
import java.util.Objects;
import java.util.Optional;

/**
 * What a compaction policy did on one call: nothing (and why), a reminder, a compaction, nothing
 * because the budget cannot be reached that way ({@link Limited}), or a failure. The current view
 * is unchanged for every outcome but {@link Compacted}. A manual compaction never answers {@link
 * NotNeeded} while the conversation is over its budget: it answers {@link Limited}, or {@link
 * Compacted} with a {@link Compacted#shortfall() shortfall}.
 */
public sealed interface CompactionOutcome
    permits CompactionOutcome.NotNeeded,
        CompactionOutcome.Reminded,
        CompactionOutcome.Compacted,
        CompactionOutcome.Limited,
        CompactionOutcome.Failed {

  /** Measured context tokens when the policy ran. */
  long tokens();

  /** The budget it was compared with. */
  long budget();

  /** Nothing was done: nothing needed doing (or, for the automatic policy, not yet). */
  record NotNeeded(String reason, long tokens, long budget) implements CompactionOutcome {
    public NotNeeded {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The 90 % reminder was appended to the conversation. */
  record Reminded(Message reminder, long tokens, long budget) implements CompactionOutcome {
    public Reminded {
      Objects.requireNonNull(reminder, "reminder");
    }
  }

  /**
   * A new view is active.
   *
   * @param report what was done
   * @param suggestion advice for the person (e.g. to summarize when a trim saved little), if any
   * @param shortfall present when the new view is still over the budget: why, and what would get
   *     further
   */
  record Compacted(
      AppliedCompaction report,
      long tokens,
      long budget,
      Optional<String> suggestion,
      Optional<Shortfall> shortfall)
      implements CompactionOutcome {
    public Compacted {
      Objects.requireNonNull(report, "report");
      suggestion = suggestion == null ? Optional.empty() : suggestion;
      shortfall = shortfall == null ? Optional.empty() : shortfall;
    }

    /** A compaction that reached the budget (or was not asked to). */
    public Compacted(
        AppliedCompaction report, long tokens, long budget, Optional<String> suggestion) {
      this(report, tokens, budget, suggestion, Optional.empty());
    }

    /** Whether the new view is within the budget. */
    public boolean withinBudget() {
      return shortfall.isEmpty();
    }
  }

  /**
   * The conversation is over its budget and the strategy could not make it smaller (nothing it may
   * remove, or its view would not have been smaller); nothing was applied and the view is
   * unchanged.
   *
   * @param strategy the strategy asked
   * @param shortfall why, and what would get further
   */
  record Limited(String strategy, Shortfall shortfall, long tokens, long budget)
      implements CompactionOutcome {
    public Limited {
      Objects.requireNonNull(strategy, "strategy");
      Objects.requireNonNull(shortfall, "shortfall");
    }

    /** The shortfall's sentence. */
    public String reason() {
      return shortfall.reason();
    }
  }

  /** Compaction was attempted and failed; the view is unchanged. */
  record Failed(String strategy, String reason, long tokens, long budget)
      implements CompactionOutcome {
    public Failed {
      Objects.requireNonNull(strategy, "strategy");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
