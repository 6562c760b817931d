package dev.compactor.chat.store;

import java.util.List;
import java.util.Objects;

/**
 * One page of a tenant's chats, newest first (by last update, then by chat id, descending).
 *
 * @param chats the chats of this page, at most the page size asked for
 * @param next the opaque cursor of the next page, or null when this is the last one
 */
public record ChatPage(List<ChatOverview> chats, String next) {
  public ChatPage {
    chats = List.copyOf(Objects.requireNonNull(chats, "chats"));
  }

  /** Whether another page follows. */
  public boolean hasNext() {
    return next != null;
  }
}
