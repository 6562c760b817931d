package dev.compactor.chat;

import java.util.Locale;

/** What a call does with the chat's history before its messages are added. */
public enum MessageOperation {
  /** Add the call's messages after the existing history (the default). */
  APPEND,
  /**
   * Replace the history with the call's messages. The replaced messages are archived, never
   * deleted; the message count failsafe then counts the new history only.
   */
  SET;

  /** {@code append} or {@code set}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses {@code append} or {@code set}.
   *
   * @throws IllegalArgumentException naming the value otherwise
   */
  public static MessageOperation parse(String value) {
    if ("append".equals(value)) {
      return APPEND;
    }
    if ("set".equals(value)) {
      return SET;
    }
    throw new IllegalArgumentException(
        "message_operation \"" + value + "\" must be \"append\" or \"set\"");
  }
}
