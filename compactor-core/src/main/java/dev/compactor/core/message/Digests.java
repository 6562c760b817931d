package dev.compactor.core.message;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/** SHA-256 digests of message lists, hex encoded. */
public final class Digests {
  private Digests() {}

  /**
   * Digest of role and content of each message, in order, separated by NUL bytes: the {@code
   * sourceDigest} of a compaction result. Changes when any message's role or text changes.
   */
  public static String roleAndContent(List<Message> messages) {
    MessageDigest md = sha256();
    for (Message m : messages) {
      update(md, m.role().wireName());
      update(md, m.content());
    }
    return HexFormat.of().formatHex(md.digest());
  }

  /**
   * Digest of everything in a message list that a provider sees (role, content, reasoning, tool
   * calls, tool call id) plus the {@code uiOnly} flag: the prefix digest that anchors provider
   * usage to the stored input it was reported for ({@link PrefixDigester} over the whole list).
   */
  public static String prefix(List<Message> messages) {
    PrefixDigester d = new PrefixDigester();
    messages.forEach(d::add);
    return d.digest();
  }

  /** SHA-256 hex of a string's UTF-8 bytes. */
  public static String sha256Hex(String text) {
    return sha256Hex(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * SHA-256 hex of bytes (of a string's UTF-8 bytes already encoded: the same as of the string).
   */
  public static String sha256Hex(byte[] bytes) {
    return HexFormat.of().formatHex(sha256().digest(bytes));
  }

  private static void update(MessageDigest md, String s) {
    md.update(s.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
  }

  private static MessageDigest sha256() {
    return PrefixDigester.sha256();
  }
}
