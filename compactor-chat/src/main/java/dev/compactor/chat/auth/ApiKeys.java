package dev.compactor.chat.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The format of API keys: {@code cpk_<id>_<secret>}, where {@code id} is 8 characters of base32
 * ({@code a-z2-7}, 40 random bits) that name the key in lists and {@code secret} is 52 characters
 * of base32 (256 random bits from {@link SecureRandom}). {@code cpk_<id>} is the key's public
 * <em>prefix</em>: shown by {@code keys list}, accepted by {@code keys revoke}, safe to log.
 *
 * <p>Only {@link #sha256(String)} of the whole key is stored. A SHA-256 without salt or stretching
 * is enough here because the key is 256 random bits, not a password a person chose.
 */
public final class ApiKeys {
  private ApiKeys() {}

  /** The text every key begins with. */
  public static final String PREFIX = "cpk_";

  /** Characters of the public id. */
  public static final int ID_LENGTH = 8;

  /** Characters of the secret part (256 bits in base32). */
  public static final int SECRET_LENGTH = 52;

  /** Characters of a whole key. */
  public static final int KEY_LENGTH = PREFIX.length() + ID_LENGTH + 1 + SECRET_LENGTH;

  private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();
  private static final Pattern KEY =
      Pattern.compile("cpk_[a-z2-7]{" + ID_LENGTH + "}_[a-z2-7]{" + SECRET_LENGTH + "}");
  private static final Pattern ID = Pattern.compile("[a-z2-7]{" + ID_LENGTH + "}");

  /** A new key: a fresh random id and secret. */
  public static String generate(SecureRandom random) {
    return PREFIX + base32(random, ID_LENGTH) + "_" + base32(random, SECRET_LENGTH);
  }

  private static String base32(SecureRandom random, int chars) {
    StringBuilder b = new StringBuilder(chars);
    for (int i = 0; i < chars; i++) {
      b.append(BASE32[random.nextInt(32)]);
    }
    return b.toString();
  }

  /**
   * The public id of {@code presented} when it has the form of a key; empty otherwise. Never
   * throws, whatever the input.
   */
  public static Optional<String> idOf(String presented) {
    if (presented == null
        || presented.length() != KEY_LENGTH
        || !KEY.matcher(presented).matches()) {
      return Optional.empty();
    }
    return Optional.of(presented.substring(PREFIX.length(), PREFIX.length() + ID_LENGTH));
  }

  /** Whether {@code id} has the form of a key's public id (8 characters {@code a-z2-7}). */
  public static boolean isId(String id) {
    return id != null && ID.matcher(id).matches();
  }

  /**
   * The id a key's id or prefix ({@code cpk_<id>}) names; empty for any other text (a whole key
   * included).
   */
  public static Optional<String> idOfPrefix(String idOrPrefix) {
    if (isId(idOrPrefix)) {
      return Optional.of(idOrPrefix);
    }
    if (idOrPrefix != null
        && idOrPrefix.startsWith(PREFIX)
        && isId(idOrPrefix.substring(PREFIX.length()))) {
      return Optional.of(idOrPrefix.substring(PREFIX.length()));
    }
    return Optional.empty();
  }

  /** {@code cpk_<id>}, the public prefix of the key with this id. */
  public static String prefixOf(String id) {
    return PREFIX + id;
  }

  /**
   * The id a revocation names: a prefix {@code cpk_<id>}, a bare id, or a whole key (only its id is
   * used).
   *
   * @param source where the value came from, for the error
   * @throws IllegalArgumentException when it is none of them; the message shows at most the first
   *     12 characters of the value, so a mistyped key is not echoed whole
   */
  public static String parseIdOrPrefix(String value, String source) {
    String v = value == null ? "" : value.strip();
    if (ID.matcher(v).matches()) {
      return v;
    }
    if (v.startsWith(PREFIX) && ID.matcher(v.substring(PREFIX.length())).matches()) {
      return v.substring(PREFIX.length());
    }
    Optional<String> id = idOf(v);
    if (id.isPresent()) {
      return id.get();
    }
    String shown = v.length() <= 12 ? v : v.substring(0, 12) + "…";
    throw new IllegalArgumentException(
        source
            + ": \""
            + shown
            + "\" is not a key prefix: expected "
            + PREFIX
            + " followed by "
            + ID_LENGTH
            + " characters a-z or 2-7 (as `keys list` shows it)");
  }

  /** The lower-case hex SHA-256 of the key's UTF-8 bytes: what is stored. */
  public static String sha256(String key) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  /** Whether two hashes are equal, compared in time independent of where they differ. */
  public static boolean sameHash(String a, String b) {
    return MessageDigest.isEqual(
        a.getBytes(StandardCharsets.US_ASCII), b.getBytes(StandardCharsets.US_ASCII));
  }
}
