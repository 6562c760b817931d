package dev.compactor.chat.store;

import dev.compactor.chat.base.ChatKey;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;

/**
 * The cursor of {@link ChatStore#listChats}: the last listed chat's update instant and id, as
 * base64url text. Opaque to callers; it carries no tenant (the listing is scoped by the caller's
 * tenant, whatever cursor it presents).
 */
record ChatCursor(Instant updatedAt, String chatId) {
  private static final String VERSION = "c1";

  /** Longest cursor text accepted (a chat id is at most {@value ChatKey#MAX_LENGTH} chars). */
  static final int MAX_LENGTH = 1200;

  String encode() {
    String plain = VERSION + "|" + updatedAt + "|" + chatId;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * @throws IllegalArgumentException naming the cursor (shortened) when it is not one {@link
   *     #encode} made
   */
  static ChatCursor decode(String cursor) {
    if (cursor.length() > MAX_LENGTH) {
      throw invalid(cursor);
    }
    String plain;
    try {
      byte[] bytes = Base64.getUrlDecoder().decode(cursor);
      plain =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (IllegalArgumentException | CharacterCodingException e) {
      throw invalid(cursor);
    }
    String[] parts = plain.split("\\|", 3);
    if (parts.length != 3 || !parts[0].equals(VERSION)) {
      throw invalid(cursor);
    }
    try {
      return new ChatCursor(Instant.parse(parts[1]), new ChatKey("t", parts[2]).chatId());
    } catch (DateTimeParseException | IllegalArgumentException e) {
      throw invalid(cursor);
    }
  }

  private static IllegalArgumentException invalid(String cursor) {
    String shown = cursor.length() <= 40 ? cursor : cursor.substring(0, 40) + "…";
    return new IllegalArgumentException(
        "cursor \""
            + shown
            + "\" is not a cursor of this chat listing; pass the next value of the previous"
            + " page unchanged");
  }
}
