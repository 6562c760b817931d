package dev.compactor.core.tokens;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.ToolCall;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Incremental form of {@link Digests#prefix}: feeds one message at a time into a SHA-256 state, so
 * the digest of every prefix of a growing list costs O(new messages) instead of O(history). Must
 * feed exactly the bytes {@code Digests.prefix} feeds; {@code PrefixDigesterTest} checks parity.
 */
final class PrefixDigester {
  private PrefixDigester() {}

  static MessageDigest start() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  static void add(MessageDigest md, Message m) {
    update(md, m.role().wireName());
    update(md, m.content());
    for (ReasoningBlock r : m.reasoning()) {
      update(md, r.type());
      update(md, r.text());
    }
    for (ToolCall c : m.toolCalls()) {
      update(md, c.id());
      update(md, c.name());
      update(md, c.arguments());
    }
    update(md, m.toolCallId() == null ? "" : m.toolCallId());
    update(md, m.uiOnly() ? "1" : "0");
    md.update((byte) 1);
  }

  /** The hex digest of the state so far, leaving the state untouched. */
  static String peek(MessageDigest md) {
    return HexFormat.of().formatHex(copy(md).digest());
  }

  static MessageDigest copy(MessageDigest md) {
    try {
      return (MessageDigest) md.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the SHA-256 implementation cannot be cloned", e);
    }
  }

  private static void update(MessageDigest md, String s) {
    md.update(s.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
  }
}
