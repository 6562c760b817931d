package dev.compactor.log.imports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.compactor.wire.json.Json;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The lines of a source with their number and byte offset, for JSON-lines importers that report a
 * bad line by where it is. Lines end at {@code \n} (a {@code \r} before it is dropped); text is
 * UTF-8, a malformed sequence becomes U+FFFD and its offset is kept in {@link Line#invalidUtf8At}.
 * Not thread-safe.
 */
final class JsonLines implements Closeable {

  /**
   * One line.
   *
   * @param number 1-based line number
   * @param offset byte offset of the line's first byte in the (decompressed) content
   * @param text the line without its line break
   * @param invalidUtf8At byte offset (in the content) of the first malformed UTF-8 sequence, or -1
   */
  record Line(int number, long offset, String text, long invalidUtf8At) {
    /** {@code line N (byte B)}, the position used in problems. */
    String where() {
      return "line " + number + " (byte " + offset + ")";
    }

    /**
     * The line parsed as JSON (a missing node when there is no value), or null when it is not JSON;
     * then {@code where: why} is added to {@code bad}.
     */
    JsonNode json(List<String> bad) {
      try {
        JsonNode node = Json.TRANSCRIPTS.readTree(text);
        return node == null ? MissingNode.getInstance() : node;
      } catch (JsonProcessingException e) {
        bad.add(where() + ": " + Json.describe(e));
        return null;
      }
    }

    /** Adds {@code where: at byte B} to {@code badUtf8} when the line held malformed UTF-8. */
    void noteInvalidUtf8(List<String> badUtf8) {
      if (invalidUtf8At >= 0) {
        badUtf8.add(where() + ": at byte " + invalidUtf8At);
      }
    }
  }

  private final InputStream in;
  private final byte[] buf = new byte[1 << 16];
  private int pos;
  private int len;
  private long bufStart;
  private byte[] line = new byte[1 << 12];
  private int number;
  private boolean eof;

  JsonLines(InputStream in) {
    this.in = in;
  }

  static JsonLines of(ImportSource source) throws IOException {
    return new JsonLines(source.open());
  }

  /** The next line, or null at the end. */
  Line next() throws IOException {
    int n = 0;
    long start = bufStart + pos;
    while (true) {
      if (pos == len) {
        if (eof || !fill()) {
          if (n == 0) {
            return null;
          }
          break;
        }
      }
      int nl = -1;
      for (int i = pos; i < len; i++) {
        if (buf[i] == '\n') {
          nl = i;
          break;
        }
      }
      int end = nl < 0 ? len : nl;
      int add = end - pos;
      if (n + add > line.length) {
        line = Arrays.copyOf(line, Math.max(line.length * 2, n + add));
      }
      System.arraycopy(buf, pos, line, n, add);
      n += add;
      if (nl >= 0) {
        pos = nl + 1;
        number++;
        return make(start, n);
      }
      pos = len;
    }
    number++;
    return make(start, n);
  }

  private Line make(long start, int n) {
    if (n > 0 && line[n - 1] == '\r') {
      n--;
    }
    String text = new String(line, 0, n, StandardCharsets.UTF_8);
    long invalid = -1;
    if (text.indexOf('\uFFFD') >= 0) {
      invalid = firstMalformed(start, n);
    }
    return new Line(number, start, text, invalid);
  }

  private long firstMalformed(long start, int n) {
    CharsetDecoder d =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer bb = ByteBuffer.wrap(line, 0, n);
    CharBuffer out = CharBuffer.allocate(n + 1);
    CoderResult r = d.decode(bb, out, true);
    // On an error the input stands at the start of the malformed sequence.
    return r.isError() ? start + bb.position() : -1;
  }

  private boolean fill() throws IOException {
    bufStart += len;
    pos = 0;
    len = 0;
    int r = in.read(buf);
    if (r <= 0) {
      eof = true;
      return false;
    }
    len = r;
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
