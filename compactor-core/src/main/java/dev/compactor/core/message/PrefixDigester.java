package dev.compactor.core.message;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The prefix digest of a growing message list, one message at a time: SHA-256 over everything a
 * provider sees of each message (role, content, reasoning, tool calls, tool call id) plus its
 * {@code uiOnly} flag. It anchors provider usage to the stored input it was reported for ({@link
 * InputFingerprint}); {@link Digests#prefix} is this over a whole list. The digest of every prefix
 * of a list costs O(new messages) instead of O(history).
 *
 * <pre>{@code
 * PrefixDigester d = new PrefixDigester();
 * for (Message m : messages) {
 *   String before = d.digest(); // Digests.prefix of the messages before m
 *   d.add(m);
 * }
 * }</pre>
 *
 * <p>Not thread-safe; {@link #copy} forks an independent state.
 */
public final class PrefixDigester {
  private final MessageDigest md;

  /** The digester of the empty list. */
  public PrefixDigester() {
    this(sha256());
  }

  private PrefixDigester(MessageDigest md) {
    this.md = md;
  }

  /** Adds the next message; returns this digester. */
  public PrefixDigester add(Message m) {
    update(m.role().wireName());
    update(m.content());
    for (ReasoningBlock r : m.reasoning()) {
      update(r.type());
      update(r.text());
    }
    for (ToolCall c : m.toolCalls()) {
      update(c.id());
      update(c.name());
      update(c.arguments());
    }
    update(m.toolCallId() == null ? "" : m.toolCallId());
    update(m.uiOnly() ? "1" : "0");
    md.update((byte) 1);
    return this;
  }

  /** The hex digest of the messages added so far; the state is left as it is. */
  public String digest() {
    return HexFormat.of().formatHex(clone(md).digest());
  }

  /** An independent copy of this state. */
  public PrefixDigester copy() {
    return new PrefixDigester(clone(md));
  }

  private void update(String s) {
    md.update(s.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
  }

  private static MessageDigest clone(MessageDigest md) {
    try {
      return (MessageDigest) md.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the SHA-256 implementation cannot be cloned", e);
    }
  }

  static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
