package dev.compactor.chat.store;

/**
 * A write to a {@link DatabaseConversation} found that the conversation changed in the database
 * since it was read (another instance appended, switched views or deleted it). Nothing of the write
 * was stored; reopen the conversation with {@link ConversationStore#conversation}.
 */
public final class ConversationConflictException extends ChatStoreException {
  private static final long serialVersionUID = 1L;

  ConversationConflictException(String message, Throwable cause) {
    super(message, cause);
  }
}
