package dev.compactor.wire.json;

import dev.compactor.core.CompactorException;

/**
 * A JSON value is not a valid message (or a message cannot be written in the native format). The
 * message names the offending field and value.
 */
public class MessageFormatException extends CompactorException {
  private static final long serialVersionUID = 1L;

  public MessageFormatException(String message) {
    super(message);
  }

  public MessageFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
