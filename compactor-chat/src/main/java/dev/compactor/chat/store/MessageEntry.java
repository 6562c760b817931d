package dev.compactor.chat.store;

import dev.compactor.core.message.Message;
import java.util.Objects;

/**
 * A message in a page of a chat's messages: one of its history, or — when archived messages are
 * asked for — one that left it.
 *
 * @param message the message exactly as stored
 * @param archive where and why it was archived, or null when it is in the history
 */
public record MessageEntry(Message message, ArchivedMessage archive) {
  public MessageEntry {
    Objects.requireNonNull(message, "message");
    if (archive != null && archive.message() != message) {
      throw new IllegalArgumentException("an archived entry carries its archived message");
    }
  }

  /** A message of the history. */
  public static MessageEntry ofHistory(Message m) {
    return new MessageEntry(m, null);
  }

  /** A message of the archive. */
  public static MessageEntry ofArchive(ArchivedMessage a) {
    return new MessageEntry(a.message(), a);
  }

  /** Whether the message left the history (summarized or replaced). */
  public boolean archived() {
    return archive != null;
  }
}
