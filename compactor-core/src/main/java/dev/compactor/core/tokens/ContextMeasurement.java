package dev.compactor.core.tokens;

import java.util.Objects;

/**
 * How many tokens a conversation would send, and how that was measured.
 *
 * @param tokens the measured size of the next request's input
 * @param source {@link Source#ANCHOR} when anchored to provider-reported usage, else {@link
 *     Source#ESTIMATE}
 * @param anchorIndex index of the anchoring assistant message, or -1 when not anchored
 * @param reportedTokens the anchor's provider-reported input (uncached + cache reads + cache
 *     writes), or 0 when not anchored
 * @param estimatedTokens the part of {@code tokens} that is a tokenizer estimate
 * @param rejectedReason why no anchor was used (no candidate, or which check the newest candidate
 *     failed), or null when anchored
 */
public record ContextMeasurement(
    long tokens,
    Source source,
    int anchorIndex,
    long reportedTokens,
    long estimatedTokens,
    String rejectedReason) {

  /** Where a measurement came from. */
  public enum Source {
    /** Provider-reported input of the last response plus estimates of what came after. */
    ANCHOR,
    /** Tokenizer estimates of every counted message. */
    ESTIMATE
  }

  public ContextMeasurement {
    Objects.requireNonNull(source, "source");
    if (tokens < 0 || reportedTokens < 0 || estimatedTokens < 0) {
      throw new IllegalArgumentException("token counts must be >= 0");
    }
    if (source == Source.ANCHOR && (anchorIndex < 0 || rejectedReason != null)) {
      throw new IllegalArgumentException("an anchored measurement needs an index and no reason");
    }
    if (source == Source.ESTIMATE && (anchorIndex != -1 || rejectedReason == null)) {
      throw new IllegalArgumentException("an estimate has no anchor index and needs a reason");
    }
  }

  static ContextMeasurement anchored(int index, long reported, long estimated) {
    return new ContextMeasurement(
        reported + estimated, Source.ANCHOR, index, reported, estimated, null);
  }

  static ContextMeasurement estimated(long estimated, String reason) {
    return new ContextMeasurement(estimated, Source.ESTIMATE, -1, 0, estimated, reason);
  }

  public boolean anchored() {
    return source == Source.ANCHOR;
  }
}
