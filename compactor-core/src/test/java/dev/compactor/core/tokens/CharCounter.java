package dev.compactor.core.tokens;

/** A deterministic counter for tests: one token per character, no per-message overhead. */
public final class CharCounter {
  private CharCounter() {}

  /** One token per character, no per-message overhead. */
  public static final TokenCounter CHARS =
      TokenCounters.custom(
          "test-chars", TokenizerFamily.ESTIMATE, String::length, MessageOverhead.NONE);
}
