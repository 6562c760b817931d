package dev.compactor.core.message;

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
    check("input", input);
    check("output", output);
    check("cacheRead", cacheRead);
    check("cacheWrite", cacheWrite);
    check("reasoning", reasoning);
  }

  private static void check(String field, long v) {
    if (v < 0) {
      throw new IllegalArgumentException("usage " + field + " must be >= 0, got " + v);
    }
  }

  /** The whole prompt the provider processed: uncached input + cache reads + cache writes. */
  public long totalInput() {
    return input + cacheRead + cacheWrite;
  }
}
