package dev.compactor.core.model;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import java.util.Objects;
import java.util.Optional;

/**
 * A model call failed. The root of the model exception family:
 *
 * <ul>
 *   <li>{@link RetryableModelException}: 429, 5xx, timeouts, connection resets, streams cut midway;
 *       worth another try later;
 *   <li>{@link NonRetryableModelException}: the request itself is wrong (400, other 4xx, malformed
 *       responses), with {@link AuthenticationException} (401/403) and {@link
 *       UnknownModelException};
 *   <li>{@link ContextOverflowException}: the prompt does not fit the context window; compact and
 *       retry.
 * </ul>
 *
 * <p>Carries the provider's error details ({@link #error()}), with secrets redacted from the
 * message and the body excerpt: API keys never appear in a message, {@code toString} or excerpt.
 * When a streamed call fails after output arrived, {@link #partialMessage()} holds it.
 *
 * <p>Immutable, hence thread-safe.
 */
public class ModelException extends CompactorException {
  private static final long serialVersionUID = 1L;

  private final ModelError error;
  private final Message partial;

  /**
   * @param message what went wrong, naming the provider; must already be redacted
   * @param error the provider's error details, never null
   * @param partial output received before a stream failed, or null
   * @param cause the underlying failure, or null
   */
  public ModelException(String message, ModelError error, Message partial, Throwable cause) {
    super(message, cause);
    this.error = Objects.requireNonNull(error, "error");
    this.partial = partial;
  }

  public ModelError error() {
    return error;
  }

  public String provider() {
    return error.provider();
  }

  /** HTTP status; 200 for an in-stream error, 0 when no response arrived. */
  public int httpStatus() {
    return error.httpStatus();
  }

  /** The provider's error type, or null. */
  public String errorType() {
    return error.type();
  }

  /** The provider's error code, or null. */
  public String errorCode() {
    return error.code();
  }

  /** Start of the response body, secrets redacted. */
  public String bodyExcerpt() {
    return error.bodyExcerpt();
  }

  /** Output a stream delivered before it failed (text, reasoning, complete tool calls so far). */
  public Optional<Message> partialMessage() {
    return Optional.ofNullable(partial);
  }

  /** Whether any output (text, reasoning or tool call) arrived before the failure. */
  public boolean hasPartialOutput() {
    return partial != null
        && (!partial.content().isEmpty()
            || !partial.reasoning().isEmpty()
            || partial.hasToolCalls());
  }
}
