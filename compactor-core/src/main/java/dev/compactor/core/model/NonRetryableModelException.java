package dev.compactor.core.model;

import dev.compactor.core.message.Message;

/**
 * The request was rejected for a reason that another try will not fix (400 and other 4xx such as an
 * exhausted quota, a malformed response body). Never retried. Subclasses: {@link
 * AuthenticationException}, {@link UnknownModelException}.
 */
public class NonRetryableModelException extends ModelException {
  private static final long serialVersionUID = 1L;

  public NonRetryableModelException(
      String message, ModelError error, Message partial, Throwable cause) {
    super(message, error, partial, cause);
  }
}
