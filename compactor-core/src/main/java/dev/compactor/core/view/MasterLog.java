package dev.compactor.core.view;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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

  /**
   * Appends messages in order, each as {@link #append} would. Returns only once all of them are
   * stored as durably as {@link #append} promises for one; an implementation may store them
   * together (the on-disk log writes them in one go and flushes once). The ids are checked before
   * anything is stored. This default appends them one by one.
   *
   * @throws IllegalArgumentException when a message's id is already stored or repeated among {@code
   *     messages} (nothing is stored then)
   */
  default void appendAll(List<Message> messages) {
    checkNew(this, messages);
    messages.forEach(this::append);
  }

  /** The message with this id, if stored. */
  Optional<Message> get(MessageId id);

  /** Position of the message in the log, or -1. */
  int indexOf(MessageId id);

  /** Number of stored messages. */
  int size();

  /** All messages in order (an unmodifiable snapshot). */
  List<Message> messages();

  /**
   * Checks that no message of {@code messages} has an id that {@code log} stores or that an earlier
   * message of {@code messages} has.
   *
   * @throws IllegalArgumentException naming the first such id
   */
  static void checkNew(MasterLog log, List<Message> messages) {
    Set<MessageId> seen = new HashSet<>();
    for (Message m : messages) {
      if (log.indexOf(m.id()) >= 0) {
        throw new IllegalArgumentException("message id " + m.id() + " is already in the log");
      }
      if (!seen.add(m.id())) {
        throw new IllegalArgumentException(
            "message id " + m.id() + " is appended twice in one batch");
      }
    }
  }
}
