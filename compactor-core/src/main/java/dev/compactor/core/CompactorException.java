package dev.compactor.core;

/**
 * Root of every exception Compactor throws. Unchecked: callers decide where to handle failures.
 * Messages name the bad value and where it came from.
 */
public class CompactorException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CompactorException(String message) {
    super(message);
  }

  public CompactorException(String message, Throwable cause) {
    super(message, cause);
  }
}
