package dev.compactor.wire;

import dev.compactor.core.message.Message;
import java.util.Objects;

/**
 * Whether a message still says what its source said, so that the source's own JSON can be sent in
 * its place (the codecs' {@code reencode} methods).
 */
public final class Unchanged {
  private Unchanged() {}

  /**
   * Whether {@code a} and {@code b} say the same to a model: role, visibility ({@code uiOnly}),
   * content, reasoning blocks, tool calls and tool call id. Ids, timestamps and metadata are not
   * sent and do not count.
   */
  public static boolean onTheWire(Message a, Message b) {
    return a.role() == b.role()
        && a.uiOnly() == b.uiOnly()
        && a.content().equals(b.content())
        && a.reasoning().equals(b.reasoning())
        && a.toolCalls().equals(b.toolCalls())
        && Objects.equals(a.toolCallId(), b.toolCallId());
  }

  /** {@link #onTheWire} for two lists, pairwise. */
  public static boolean onTheWire(java.util.List<Message> a, java.util.List<Message> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (!onTheWire(a.get(i), b.get(i))) {
        return false;
      }
    }
    return true;
  }
}
