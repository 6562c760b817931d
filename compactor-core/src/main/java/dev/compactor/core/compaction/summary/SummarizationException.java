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
}
