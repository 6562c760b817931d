package dev.compactor.server.proxy;

import dev.compactor.chat.store.ListingCursor;

/**
 * The cursor of {@link ProxyStore#list}: the last listed conversation's last-activity instant
 * (epoch milliseconds) and id, as base64url text ({@link ListingCursor}). Opaque to callers; it
 * carries no tenant (the listing is scoped by the caller's tenant, whatever cursor it presents).
 */
record ConversationCursor(long updatedAt, String id) {
  private static final ListingCursor CODEC =
      new ListingCursor("p1", 400, "conversation listing", "next_cursor");

  String encode() {
    return CODEC.encode(Long.toString(updatedAt), id);
  }

  /**
   * @throws IllegalArgumentException naming the cursor (shortened) when it is not one {@link
   *     #encode} made
   */
  static ConversationCursor decode(String cursor) {
    return CODEC.decode(
        cursor,
        (updatedAt, id) -> {
          if (!id.startsWith("conv_")) {
            throw new IllegalArgumentException("not a conversation id: " + id);
          }
          return new ConversationCursor(Long.parseLong(updatedAt), id);
        });
  }
}
