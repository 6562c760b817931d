package dev.compactor.log.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Directory names for conversations named by an application's ids (a chat memory id, a conversation
 * id): the id itself when it is a plain file name, else {@code id-} and its UTF-8 bytes in hex, so
 * that no id — {@code ..}, {@code a/b}, a drive letter, control characters — names a path outside
 * the parent directory, and two ids never share a directory.
 */
public final class ConversationNames {
  private ConversationNames() {}

  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  private static final String HEX = "id-";
  private static final int MAX_HEX_BYTES = 100;

  /** The directory name of {@code id}. */
  public static String of(String id) {
    if (PLAIN.matcher(id).matches() && !id.startsWith(HEX)) {
      return id;
    }
    byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
    if (bytes.length <= MAX_HEX_BYTES) {
      return HEX + HexFormat.of().formatHex(bytes);
    }
    // too long to spell out within a file name's limit: a prefix and a digest of the whole
    return HEX
        + HexFormat.of().formatHex(bytes, 0, MAX_HEX_BYTES)
        + "-"
        + HexFormat.of().formatHex(sha256(bytes), 0, 16);
  }

  /**
   * The id a directory name stands for; empty for a name {@link #of} does not make or cannot undo.
   */
  public static Optional<String> idOf(String name) {
    if (name.startsWith(HEX)) {
      String hex = name.substring(HEX.length());
      if (hex.contains("-")) {
        return Optional.empty();
      }
      try {
        return Optional.of(new String(HexFormat.of().parseHex(hex), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    return PLAIN.matcher(name).matches() ? Optional.of(name) : Optional.empty();
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
