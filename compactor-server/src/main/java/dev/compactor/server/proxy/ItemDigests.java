package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;

/**
 * Digests of the items a client sends (Chat Completions messages, Anthropic turns and system): the
 * SHA-256 of an item's canonical JSON (object keys sorted, no whitespace, numbers as written), and
 * the chain of prefix digests {@code c[i] = sha256(c[i-1] ‖ d[i])}, so that "the stored items are a
 * prefix of this request" is one equality of digests. Key order and whitespace a client library
 * happens to write do not change a digest; any change of a value does. Anthropic {@code
 * cache_control} markers are left out: a client such as Claude Code moves its breakpoints to the
 * newest messages on every request, and a message whose marker moved is still the same message.
 * Stateless.
 */
final class ItemDigests {
  private ItemDigests() {}

  /** The field left out of the canonical form (a prompt-cache breakpoint, not content). */
  static final String CACHE_CONTROL = "cache_control";

  /** The canonical JSON text of a node. */
  static String canonical(JsonNode node) {
    StringBuilder sb = new StringBuilder(256);
    write(node, sb);
    return sb.toString();
  }

  private static void write(JsonNode n, StringBuilder sb) {
    if (n.isTextual()) {
      quote(n.textValue(), sb);
    } else if (n.isObject()) {
      String[] names = new String[n.size()];
      int count = 0;
      for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
        String name = it.next();
        if (!name.equals(CACHE_CONTROL)) {
          names[count++] = name;
        }
      }
      Arrays.sort(names, 0, count);
      sb.append('{');
      for (int i = 0; i < count; i++) {
        if (i > 0) {
          sb.append(',');
        }
        quote(names[i], sb);
        sb.append(':');
        write(n.get(names[i]), sb);
      }
      sb.append('}');
    } else if (n.isArray()) {
      sb.append('[');
      for (int i = 0; i < n.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        write(n.get(i), sb);
      }
      sb.append(']');
    } else {
      sb.append(n.toString());
    }
  }

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /**
   * A JSON string literal exactly as Jackson writes it by default ({@code TextNode.toString()}):
   * quote and backslash escaped, control characters as the short escapes (b, t, n, f, r) or as a
   * six-character u-escape with upper-case hex digits, everything else as it is. Written here
   * rather than with a Jackson generator per string: digests are taken of every item of every
   * request, and a generator per string cost more than all the rest.
   */
  static void quote(String s, StringBuilder sb) {
    sb.append('"');
    int from = 0;
    int len = s.length();
    for (int i = 0; i < len; i++) {
      char c = s.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      sb.append(s, from, i);
      from = i + 1;
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\b' -> sb.append("\\b");
        case '\t' -> sb.append("\\t");
        case '\n' -> sb.append("\\n");
        case '\f' -> sb.append("\\f");
        case '\r' -> sb.append("\\r");
        default -> sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
      }
    }
    sb.append(s, from, len).append('"');
  }

  /** The digest of one item. */
  static String of(JsonNode item) {
    return hex(sha256().digest(canonical(item).getBytes(StandardCharsets.UTF_8)));
  }

  /** The chain digests of {@code items}: element {@code i} covers items {@code 0..i}. */
  static List<String> chain(List<JsonNode> items) {
    return chain(items, List.of());
  }

  /**
   * As {@link #chain(List)}, given the chain of the first {@code prefix.size()} items (known from
   * an earlier request with the same leading items): only the items after them are digested.
   */
  static List<String> chain(List<JsonNode> items, List<String> prefix) {
    if (prefix.size() > items.size()) {
      throw new IllegalArgumentException(
          "a chain of " + prefix.size() + " items given for " + items.size() + " items");
    }
    List<String> out = new ArrayList<>(items.size());
    out.addAll(prefix);
    String prev = prefix.isEmpty() ? "" : prefix.get(prefix.size() - 1);
    for (JsonNode item : items.subList(prefix.size(), items.size())) {
      String digest = of(item); // before taking the digester: of() uses (and resets) it too
      MessageDigest md = sha256();
      md.update(prev.getBytes(StandardCharsets.US_ASCII));
      md.update((byte) '|');
      md.update(digest.getBytes(StandardCharsets.US_ASCII));
      prev = hex(md.digest());
      out.add(prev);
    }
    return out;
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static final ThreadLocal<MessageDigest> SHA256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("SHA-256 is always available", e);
            }
          });

  /** This thread's SHA-256, reset. */
  private static MessageDigest sha256() {
    MessageDigest md = SHA256.get();
    md.reset();
    return md;
  }
}
