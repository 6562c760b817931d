package dev.compactor.chat.store;

import dev.compactor.core.message.Message;
import java.util.List;
import java.util.Objects;

/**
 * A chat as read from a store: its record and its history, in order.
 *
 * @param record the stored record, or null when the chat has never been stored
 * @param messages the history, oldest first; empty for a new chat
 */
public record ChatSnapshot(ChatRecord record, List<Message> messages) {
  public ChatSnapshot {
    messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
  }

  /** Whether the chat has been stored before. */
  public boolean exists() {
    return record != null;
  }
}
