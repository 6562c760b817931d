package dev.compactor.chat.store;

import dev.compactor.core.CompactorException;

/** The store failed: the database is unreachable, a statement failed, a migration failed. */
public class ChatStoreException extends CompactorException {
  private static final long serialVersionUID = 1L;

  public ChatStoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public ChatStoreException(String message) {
    super(message);
  }
}
