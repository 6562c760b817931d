package dev.compactor.core.message;

import java.util.Objects;
import java.util.UUID;

/** Identifier of a message, unique within one conversation's master log. */
public record MessageId(String value) implements Comparable<MessageId> {
  public MessageId {
    Objects.requireNonNull(value, "message id");
    if (value.isBlank()) {
      throw new IllegalArgumentException("message id must not be blank");
    }
  }

  public static MessageId of(String value) {
    return new MessageId(value);
  }

  /**
   * The id of a message the library itself appends to a conversation (a status line, a reminder):
   * {@code <kind>-<position>-} and 8 hex digits of a digest of {@code content}, where {@code
   * position} is the master log's size before the append. Unique in an append-only master log (no
   * two messages take the same position), and the same conversation replayed gets the same ids, so
   * the checkpoint ids and recovery markers derived from them are the same too.
   */
  public static MessageId appended(String kind, int position, String content) {
    return new MessageId(kind + "-" + position + "-" + Digests.sha256Hex(content).substring(0, 8));
  }

  /** A fresh random id. */
  public static MessageId random() {
    return new MessageId(UUID.randomUUID().toString());
  }

  @Override
  public int compareTo(MessageId o) {
    return value.compareTo(o.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
