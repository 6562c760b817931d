package dev.compactor.wire.json;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 decoding of request bodies and files: a bad byte is an error naming its offset. */
public final class Utf8 {
  private Utf8() {}

  /**
   * {@code bytes} as text.
   *
   * @param where what the bytes are, for the message ({@code "--request body.json"}, {@code "the
   *     request body"})
   * @throws CharacterCodingException with a message naming {@code where}, the bad byte and its
   *     offset
   */
  public static String decode(byte[] bytes, String where) throws CharacterCodingException {
    CharsetDecoder d =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult r = d.decode(in, out, true);
    if (!r.isError()) {
      r = d.flush(out);
    }
    if (r.isError()) {
      throw new BadUtf8(
          String.format(
              "%s: not UTF-8 text: invalid byte 0x%02X at byte offset %d",
              where, bytes[in.position()] & 0xff, in.position()));
    }
    return out.flip().toString();
  }

  /** Bytes that are not UTF-8, with a message naming where and at which offset. */
  public static final class BadUtf8 extends CharacterCodingException {
    private static final long serialVersionUID = 1L;
    private final String message;

    BadUtf8(String message) {
      this.message = message;
    }

    @Override
    public String getMessage() {
      return message;
    }
  }
}
