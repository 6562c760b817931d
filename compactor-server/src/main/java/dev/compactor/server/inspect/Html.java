package dev.compactor.server.inspect;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** HTML escaping: every piece of stored content goes through {@link #esc} before it is written. */
final class Html {
  private Html() {}

  /** {@code s} as HTML text or attribute value ({@code & < > " '} escaped); "" for null. */
  static String esc(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** {@code s} as one path segment of an address. */
  static String seg(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** A whole number with thousands separators. */
  static String n(long v) {
    return String.format(java.util.Locale.ROOT, "%,d", v);
  }
}
