package dev.compactor.core.compaction.summary;

import dev.compactor.core.CompactorException;

/**
 * A summary could not be produced (the model failed, returned nothing usable, or a summarizer
 * broke). The automatic policy latches to trim-only on it; the current view stays active.
 */
public class SummarizationException extends CompactorException {
  private static final long serialVersionUID = 1L;

  public SummarizationException(String message) {
    super(message);
  }

  public SummarizationException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * What went wrong, for a message: the exception's message, or — when it has none (a bare {@code
   * NullPointerException}, an {@code IOException()} from a client) — its type, followed by its
   * cause's description when there is one.
   */
  public static String describe(Throwable e) {
    String msg = e.getMessage();
    if (msg != null && !msg.isBlank()) {
      return msg;
    }
    Throwable cause = e.getCause();
    if (cause != null && cause != e) {
      return e.getClass().getSimpleName() + " caused by " + describe(cause);
    }
    return e.getClass().getName() + " (no message)";
  }
}
