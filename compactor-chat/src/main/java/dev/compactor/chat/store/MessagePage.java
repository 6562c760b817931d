package dev.compactor.chat.store;

import java.util.List;
import java.util.Objects;

/**
 * One page of a chat's messages.
 *
 * @param messages the messages of the page, in order
 * @param offset the position of the first of them in the whole list
 * @param total the length of the whole list (the history, plus the archive when it was asked for)
 */
public record MessagePage(List<MessageEntry> messages, int offset, int total) {
  public MessagePage {
    messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
    if (offset < 0 || total < 0) {
      throw new IllegalArgumentException("offset and total must be >= 0");
    }
  }

  /** Whether messages follow this page. */
  public boolean hasNext() {
    return offset + messages.size() < total;
  }

  /** The offset of the next page ({@link #total()} after the last page). */
  public int nextOffset() {
    return Math.min(total, offset + messages.size());
  }
}
