package dev.compactor.chat.settings;

import dev.compactor.models.ResponsesCompaction;

/**
 * The effective provider compaction settings of a chat.
 *
 * @param enabled whether provider compaction is asked for (default true once provider settings
 *     exist)
 * @param compactThreshold the token count at which the provider compacts, &ge; {@value
 *     #MIN_COMPACT_THRESHOLD}; null = {@link #DEFAULT_THRESHOLD_FRACTION} of the model's context
 *     window from the model catalog
 */
public record ProviderSettings(boolean enabled, Integer compactThreshold) {
  /** The smallest threshold the provider accepts ({@link ResponsesCompaction}'s). */
  public static final int MIN_COMPACT_THRESHOLD = ResponsesCompaction.MIN_COMPACT_THRESHOLD;

  /** The default threshold as a fraction of the model's context window. */
  public static final double DEFAULT_THRESHOLD_FRACTION = 0.8;

  public ProviderSettings {
    if (compactThreshold != null && compactThreshold < MIN_COMPACT_THRESHOLD) {
      throw new IllegalArgumentException(
          "compact_threshold must be >= " + MIN_COMPACT_THRESHOLD + ", got " + compactThreshold);
    }
  }

  /**
   * The threshold to send for a model with this context window: the configured one, else {@link
   * #DEFAULT_THRESHOLD_FRACTION} of the window (at least {@value #MIN_COMPACT_THRESHOLD}).
   */
  public int thresholdFor(long contextWindow) {
    if (compactThreshold != null) {
      return compactThreshold;
    }
    long t = (long) Math.floor(contextWindow * DEFAULT_THRESHOLD_FRACTION);
    return (int) Math.max(MIN_COMPACT_THRESHOLD, Math.min(Integer.MAX_VALUE, t));
  }
}
