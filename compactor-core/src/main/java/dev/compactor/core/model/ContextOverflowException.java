package dev.compactor.core.model;

import dev.compactor.core.message.Message;
import java.util.OptionalLong;

/**
 * The prompt does not fit the model's context window (OpenAI {@code context_length_exceeded},
 * Anthropic "prompt is too long", llama.cpp {@code exceed_context_size_error}, …, as the clients of
 * {@code compactor-models} classify provider errors). Not retried as is: compact the conversation
 * and send again. May arrive inside a stream after HTTP 200, in which case {@link
 * #partialMessage()} holds any output so far.
 */
public class ContextOverflowException extends ModelException {
  private static final long serialVersionUID = 1L;

  private final Long promptTokens;
  private final Long contextWindow;

  /**
   * @param promptTokens prompt size the provider reported, or empty
   * @param contextWindow context window (or limit) the provider reported, or empty
   */
  public ContextOverflowException(
      String message,
      ModelError error,
      OptionalLong promptTokens,
      OptionalLong contextWindow,
      Message partial,
      Throwable cause) {
    super(message, error, partial, cause);
    this.promptTokens = promptTokens.isPresent() ? promptTokens.getAsLong() : null;
    this.contextWindow = contextWindow.isPresent() ? contextWindow.getAsLong() : null;
  }

  /** Tokens in the prompt, when the provider said. */
  public OptionalLong promptTokens() {
    return promptTokens == null ? OptionalLong.empty() : OptionalLong.of(promptTokens);
  }

  /** The context window or limit the prompt exceeded, when the provider said. */
  public OptionalLong contextWindow() {
    return contextWindow == null ? OptionalLong.empty() : OptionalLong.of(contextWindow);
  }
}
