package dev.compactor.chat.store;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.core.Bounds;
import java.time.Instant;
import java.util.Objects;

/**
 * The stored state of a chat besides its messages.
 *
 * @param key the chat
 * @param settings the sticky compaction settings as sparse JSON text, or null when none were given
 * @param model the model of the chat's most recent model call (used when a call names none), or
 *     null
 * @param interactions model calls the chat has made (the {@code stop_on_high_interactions} counter;
 *     never reset)
 * @param lastPromptTokens prompt tokens of the most recent model call, or null when the current
 *     history has not been sent yet
 * @param lastCompletionTokens completion tokens of that call, or null
 * @param version incremented by every stored update; set by the store
 * @param createdAt when the chat was first stored
 * @param updatedAt when it was last changed
 */
public record ChatRecord(
    ChatKey key,
    String settings,
    String model,
    long interactions,
    Long lastPromptTokens,
    Long lastCompletionTokens,
    long version,
    Instant createdAt,
    Instant updatedAt) {
  public ChatRecord {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(updatedAt, "updatedAt");
    Bounds.atLeast(0, interactions, "interactions");
    if ((lastPromptTokens == null) != (lastCompletionTokens == null)) {
      throw new IllegalArgumentException(
          "last prompt and completion tokens are both known or both unknown");
    }
  }

  /** A chat that has never been stored. */
  public static ChatRecord fresh(ChatKey key, Instant now) {
    return new ChatRecord(key, null, null, 0, null, null, 0, now, now);
  }

  /** The context size of the most recent model call: its prompt plus completion tokens, or null. */
  public Long lastContextTokens() {
    return lastPromptTokens == null ? null : lastPromptTokens + lastCompletionTokens;
  }
}
