package dev.compactor.chat.store;

import dev.compactor.chat.base.ChatKey;
import java.time.Instant;

/**
 * The cursor of {@link ChatStore#listChats}: the last listed chat's update instant and id, as
 * base64url text ({@link ListingCursor}). Opaque to callers; it carries no tenant (the listing is
 * scoped by the caller's tenant, whatever cursor it presents).
 */
record ChatCursor(Instant updatedAt, String chatId) {
  /** Longest cursor text accepted (a chat id is at most {@value ChatKey#MAX_LENGTH} chars). */
  static final int MAX_LENGTH = 1200;

  private static final ListingCursor CODEC =
      new ListingCursor("c1", MAX_LENGTH, "chat listing", "next value");

  String encode() {
    return CODEC.encode(updatedAt.toString(), chatId);
  }

  /**
   * @throws IllegalArgumentException naming the cursor (shortened) when it is not one {@link
   *     #encode} made
   */
  static ChatCursor decode(String cursor) {
    return CODEC.decode(
        cursor,
        (updatedAt, chatId) ->
            new ChatCursor(Instant.parse(updatedAt), new ChatKey("t", chatId).chatId()));
  }
}
