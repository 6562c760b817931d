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
