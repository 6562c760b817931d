package dev.compactor.core.model;

import dev.compactor.core.message.Message;
import java.time.Duration;
import java.util.Optional;

/**
 * A transient failure: rate limit (429), server error (5xx, Anthropic 529 overloaded), timeout,
 * connection refused or reset, a body or stream cut midway. Clients retry these themselves with
 * backoff; one that reaches the caller has outlasted the retry policy (earlier attempts' failures
 * are attached as suppressed exceptions) or cut a stream after output was delivered.
 */
public class RetryableModelException extends ModelException {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  /**
   * @param retryAfter how long the provider asked to wait ({@code Retry-After}), or null
   */
  public RetryableModelException(
      String message, ModelError error, Duration retryAfter, Message partial, Throwable cause) {
    super(message, error, partial, cause);
    this.retryAfter = retryAfter;
  }

  /** The wait the provider asked for with {@code Retry-After}, when it did. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
