package dev.compactor.core.message;

import dev.compactor.core.Bounds;

/**
 * Token usage a provider reported for one model call.
 *
 * @param input uncached input tokens
 * @param output output tokens (including reasoning tokens, as providers bill them)
 * @param cacheRead input tokens read from the prompt cache
 * @param cacheWrite input tokens written to the prompt cache
 * @param reasoning reasoning tokens within {@code output}
 */
public record Usage(long input, long output, long cacheRead, long cacheWrite, long reasoning) {
  public Usage {
    Bounds.atLeast(0, input, "usage input");
    Bounds.atLeast(0, output, "usage output");
    Bounds.atLeast(0, cacheRead, "usage cacheRead");
    Bounds.atLeast(0, cacheWrite, "usage cacheWrite");
    Bounds.atLeast(0, reasoning, "usage reasoning");
  }

  /** The whole prompt the provider processed: uncached input + cache reads + cache writes. */
  public long totalInput() {
    return input + cacheRead + cacheWrite;
  }
}
