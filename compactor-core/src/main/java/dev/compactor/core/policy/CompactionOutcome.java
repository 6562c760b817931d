package dev.compactor.core.policy;

import dev.compactor.core.message.Message;
import java.util.Objects;
import java.util.Optional;

/**
 * What a compaction policy did on one call: nothing (and why), a reminder, a compaction, or a
 * failure. The current view is unchanged for every outcome but {@link Compacted}.
 */
public sealed interface CompactionOutcome
    permits CompactionOutcome.NotNeeded,
        CompactionOutcome.Reminded,
        CompactionOutcome.Compacted,
        CompactionOutcome.Failed {

  /** Measured context tokens when the policy ran. */
  long tokens();

  /** The budget it was compared with. */
  long budget();

  /** Nothing was done. */
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
   */
  record Compacted(AppliedCompaction report, long tokens, long budget, Optional<String> suggestion)
      implements CompactionOutcome {
    public Compacted {
      Objects.requireNonNull(report, "report");
      suggestion = suggestion == null ? Optional.empty() : suggestion;
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
