package dev.compactor.core.compaction.trim;

import dev.compactor.core.compaction.CompactionResult;

/**
 * A trim's result with the numbers a caller needs to judge it ({@code /compact trim} prints them,
 * the automatic policy rejects too small savings).
 *
 * @param result the compaction result ({@link TrimProvider#compress} returns only this)
 * @param tokensBefore tokens of the input messages
 * @param tokensAfter tokens of the result messages
 * @param target the token target ({@code limit × trimTargetRatio}), or null without a limit
 * @param stubbed stale tool outputs replaced by a stub (phase 0)
 * @param truncated large tool outputs cut to head and tail (phase 2)
 * @param compressed assistant messages compressed extractively (phase 3)
 */
public record TrimOutcome(
    CompactionResult result,
    long tokensBefore,
    long tokensAfter,
    Integer target,
    int stubbed,
    int truncated,
    int compressed) {

  /** True when there is no target or the result is at or below it. */
  public boolean targetReached() {
    return target == null || tokensAfter <= target;
  }

  /** Tokens removed. */
  public long savedTokens() {
    return tokensBefore - tokensAfter;
  }

  /** True when some message was replaced. */
  public boolean changed() {
    return stubbed + truncated + compressed > 0;
  }
}
