package dev.compactor.core.view;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.List;
import java.util.Optional;

/**
 * The lossless, append-only record of every message of a conversation, in order. Nothing is ever
 * removed or rewritten; compactions only create new {@link View}s.
 *
 * <p>Implementations: {@link InMemoryMasterLog}; the on-disk log of {@code compactor-log}.
 */
public interface MasterLog {

  /**
   * Appends a message. Returns only once the message is stored as durably as the implementation
   * promises.
   *
   * @throws IllegalArgumentException when a message with the same id is already stored
   */
  void append(Message message);

  /** The message with this id, if stored. */
  Optional<Message> get(MessageId id);

  /** Position of the message in the log, or -1. */
  int indexOf(MessageId id);

  /** Number of stored messages. */
  int size();

  /** All messages in order (an unmodifiable snapshot). */
  List<Message> messages();
}
