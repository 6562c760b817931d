package dev.compactor.server.proxy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The cursor of {@link ProxyStore#list}: the last listed conversation's last-activity instant
 * (epoch milliseconds) and id, as base64url text. Opaque to callers; it carries no tenant (the
 * listing is scoped by the caller's tenant, whatever cursor it presents).
 */
record ConversationCursor(long updatedAt, String id) {
  private static final String VERSION = "p1";
  private static final int MAX_LENGTH = 400;

  String encode() {
    String plain = VERSION + "|" + updatedAt + "|" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @throws IllegalArgumentException naming the cursor (shortened) when it is not one {@link
   *     #encode} made
   */
  static ConversationCursor decode(String cursor) {
    if (cursor.length() > MAX_LENGTH) {
      throw invalid(cursor);
    }
    String plain;
    try {
      plain = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw invalid(cursor);
    }
    String[] parts = plain.split("\\|", 3);
    if (parts.length != 3 || !parts[0].equals(VERSION) || !parts[2].startsWith("conv_")) {
      throw invalid(cursor);
    }
    try {
      return new ConversationCursor(Long.parseLong(parts[1]), parts[2]);
    } catch (NumberFormatException e) {
      throw invalid(cursor);
    }
  }

  private static IllegalArgumentException invalid(String cursor) {
    String shown = cursor.length() <= 40 ? cursor : cursor.substring(0, 40) + "…";
    return new IllegalArgumentException(
        "cursor \""
            + shown
            + "\" is not a cursor of this conversation listing; pass the next_cursor of the"
            + " previous page unchanged");
  }
}
