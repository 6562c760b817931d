package dev.compactor.core.tokens;

/**
 * Counts the tokens of a plain text: the one thing a tokenizer must do for {@link TokenCounter}.
 * Implementations must be thread-safe and deterministic (the same text always gives the same
 * count), because counts are cached by content.
 *
 * <p>Plug in another tokenizer (e.g. a Hugging Face one) with {@link TokenCounters#custom}.
 */
@FunctionalInterface
public interface TextTokenizer {
  /**
   * The number of tokens of {@code text}.
   *
   * @param text never null; may be empty
   * @return a count &ge; 0
   */
  int count(String text);
}
