package dev.compactor.log.store;

import dev.compactor.core.message.MessageId;
import java.util.Objects;

/**
 * Where a master message is stored: the bytes {@code [start, end)} of {@code conversation.jsonl}
 * hold its JSON line (without the line break). Reading those bytes back and decoding them gives the
 * original message exactly; this is the recovery reference a synthesized view entry carries for
 * each master message it covers.
 *
 * @param id the master message
 * @param start offset of the line's first byte
 * @param end offset just past the line's last byte (the line break is at {@code end})
 */
public record MessageRange(MessageId id, long start, long end) {
  public MessageRange {
    Objects.requireNonNull(id, "id");
    if (start < 0 || end <= start) {
      throw new IllegalArgumentException(
          "byte range of " + id + " must satisfy 0 <= start < end, got " + start + "-" + end);
    }
  }

  /** Number of bytes. */
  public long length() {
    return end - start;
  }
}
