package dev.compactor.chat.store;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.util.Base64;
import java.util.function.BiFunction;

/**
 * The text form of a listing's cursor: a version tag, the last listed item's position (an instant
 * or a number, as text) and its id, joined by {@code |} and encoded as unpadded base64url. Opaque
 * to callers. One instance per kind of listing ({@link ChatStore#listChats}, the proxy's
 * conversation list); a cursor of one listing is rejected by another by its version tag.
 */
public final class ListingCursor {
  private final String version;
  private final int maxLength;
  private final String listing;
  private final String nextField;

  /**
   * @param version the tag that starts every cursor of this listing, e.g. {@code "c1"}
   * @param maxLength the longest cursor text accepted
   * @param listing what the listing is, for the error message ("chat listing")
   * @param nextField where the caller finds the next cursor, for the error message ("next value")
   */
  public ListingCursor(String version, int maxLength, String listing, String nextField) {
    this.version = version;
    this.maxLength = maxLength;
    this.listing = listing;
    this.nextField = nextField;
  }

  /** The cursor text of the item at {@code position} with {@code id}. */
  public String encode(String position, String id) {
    String plain = version + "|" + position + "|" + id;
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(plain.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The position and id in {@code cursor}, made into a value by {@code parse}, which throws an
   * {@link IllegalArgumentException} or a {@link DateTimeException} for a part it does not accept.
   *
   * @throws IllegalArgumentException naming the cursor (shortened) when it is not one {@link
   *     #encode} made for this listing
   */
  public <T> T decode(String cursor, BiFunction<String, String, T> parse) {
    if (cursor.length() > maxLength) {
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
    if (parts.length != 3 || !parts[0].equals(version)) {
      throw invalid(cursor);
    }
    try {
      return parse.apply(parts[1], parts[2]);
    } catch (IllegalArgumentException | DateTimeException e) {
      throw invalid(cursor);
    }
  }

  private IllegalArgumentException invalid(String cursor) {
    String shown = cursor.length() <= 40 ? cursor : cursor.substring(0, 40) + "…";
    return new IllegalArgumentException(
        "cursor \""
            + shown
            + "\" is not a cursor of this "
            + listing
            + "; pass the "
            + nextField
            + " of the previous page unchanged");
  }
}
