package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Digests of the items a client sends (Chat Completions messages, Anthropic turns and system): the
 * SHA-256 of an item's canonical JSON (object keys sorted, no whitespace, numbers as written), and
 * the chain of prefix digests {@code c[i] = sha256(c[i-1] ‖ d[i])}, so that "the stored items are a
 * prefix of this request" is one equality of digests. Key order and whitespace a client library
 * happens to write do not change a digest; any change of a value does. Stateless.
 */
final class ItemDigests {
  private ItemDigests() {}

  /** The canonical JSON text of a node. */
  static String canonical(JsonNode node) {
    StringBuilder sb = new StringBuilder();
    write(node, sb);
    return sb.toString();
  }

  private static void write(JsonNode n, StringBuilder sb) {
    if (n.isObject()) {
      Map<String, JsonNode> sorted = new TreeMap<>();
      Iterator<Map.Entry<String, JsonNode>> it = n.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        sorted.put(e.getKey(), e.getValue());
      }
      sb.append('{');
      boolean first = true;
      for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        sb.append(com.fasterxml.jackson.databind.node.TextNode.valueOf(e.getKey()).toString())
            .append(':');
        write(e.getValue(), sb);
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

  /** The digest of one item. */
  static String of(JsonNode item) {
    return hex(sha256().digest(canonical(item).getBytes(StandardCharsets.UTF_8)));
  }

  /** The chain digests of {@code items}: element {@code i} covers items {@code 0..i}. */
  static List<String> chain(List<JsonNode> items) {
    List<String> out = new ArrayList<>(items.size());
    String prev = "";
    for (JsonNode item : items) {
      MessageDigest md = sha256();
      md.update(prev.getBytes(StandardCharsets.US_ASCII));
      md.update((byte) '|');
      md.update(of(item).getBytes(StandardCharsets.US_ASCII));
      prev = hex(md.digest());
      out.add(prev);
    }
    return out;
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always available", e);
    }
  }
}
