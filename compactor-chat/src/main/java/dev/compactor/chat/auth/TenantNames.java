package dev.compactor.chat.auth;

import java.util.regex.Pattern;

/**
 * The names a tenant may have when API keys name it: 1 to {@value #MAX_LENGTH} characters, ASCII
 * letters, digits, {@code .}, {@code _} and {@code -}, beginning with a letter or digit. Names are
 * case-sensitive. Every such name is also a valid tenant of a {@code ChatKey}.
 */
public final class TenantNames {
  private TenantNames() {}

  /** Longest tenant name accepted. */
  public static final int MAX_LENGTH = 64;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  /**
   * Returns {@code tenant} when it is a valid name.
   *
   * @param source where the name came from, for the error (e.g. {@code "--tenant"})
   * @throws IllegalArgumentException naming the value and {@code source} when it is null, blank,
   *     too long or has a character outside the allowed ones
   */
  public static String check(String tenant, String source) {
    if (tenant == null || tenant.isEmpty()) {
      throw new IllegalArgumentException(source + ": a tenant name must not be empty");
    }
    if (tenant.length() > MAX_LENGTH) {
      throw new IllegalArgumentException(
          source
              + ": tenant name \""
              + tenant.substring(0, 20)
              + "…\" is "
              + tenant.length()
              + " characters long; at most "
              + MAX_LENGTH
              + " are allowed");
    }
    if (!NAME.matcher(tenant).matches()) {
      throw new IllegalArgumentException(
          source
              + ": tenant name \""
              + printable(tenant)
              + "\" may only contain ASCII letters, digits, '.', '_' and '-', and must begin"
              + " with a letter or digit");
    }
    return tenant;
  }

  /** {@code s} with control characters shown as {@code \\uXXXX}, so an error stays one line. */
  private static String printable(String s) {
    StringBuilder b = new StringBuilder();
    s.codePoints()
        .forEach(
            c -> {
              if (Character.isISOControl(c)) {
                b.append(String.format("\\u%04X", c));
              } else {
                b.appendCodePoint(c);
              }
            });
    return b.toString();
  }
}
