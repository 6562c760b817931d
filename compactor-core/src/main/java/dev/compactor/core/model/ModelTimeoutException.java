package dev.compactor.core.model;

import dev.compactor.core.message.Message;

/**
 * A model call ran out of its time: an attempt timed out and no retry was left within the call's
 * timeout. Retryable like any other transient failure; told apart so that a service can answer
 * "upstream timed out" (HTTP 504) rather than "upstream failed" (502).
 */
public class ModelTimeoutException extends RetryableModelException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what timed out, naming the provider and the limit; must already be redacted
   * @param error the provider's error details (status 0: no response arrived)
   * @param partial output a stream delivered before the time ran out, or null
   * @param cause the underlying failure, or null
   */
  public ModelTimeoutException(String message, ModelError error, Message partial, Throwable cause) {
    super(message, error, null, partial, cause);
  }
}
