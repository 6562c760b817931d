package dev.compactor.core.model;

/**
 * The API key is missing, invalid, or not allowed to use this model or endpoint (401, 403). The
 * message never contains the key.
 */
public class AuthenticationException extends NonRetryableModelException {
  private static final long serialVersionUID = 1L;

  public AuthenticationException(String message, ModelError error, Throwable cause) {
    super(message, error, null, cause);
  }
}
