package dev.compactor.core.policy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What one applied compaction did to a conversation (its new view): the record written to the
 * journal and returned to the caller. Not the chat task's report of a call, which is {@code
 * dev.compactor.chat.base.CompactionDetails}.
 *
 * @param at when it finished
 * @param trigger what started it
 * @param strategy the provider that produced the new view (e.g. {@code trim}, {@code summarize})
 * @param tokensBefore measured context before
 * @param tokensAfter measured context of the new view
 * @param messagesBefore messages in the view before (uiOnly excluded)
 * @param messagesAfter messages in the new view (uiOnly excluded)
 * @param duration time spent
 * @param viewId the new view's id
 * @param limitations what the strategy could not do (from {@code CompactionResult})
 */
public record AppliedCompaction(
    Instant at,
    Trigger trigger,
    String strategy,
    long tokensBefore,
    long tokensAfter,
    int messagesBefore,
    int messagesAfter,
    Duration duration,
    String viewId,
    List<String> limitations) {
  public AppliedCompaction {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(strategy, "strategy");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(viewId, "viewId");
    limitations = limitations == null ? List.of() : List.copyOf(limitations);
  }

  /** Tokens saved, as a fraction of {@code tokensBefore} (0 when nothing was there). */
  public double savedFraction() {
    return tokensBefore == 0 ? 0 : (tokensBefore - tokensAfter) / (double) tokensBefore;
  }
}
