package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.compactor.wire.json.Json;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ItemDigestsTest {
  /** The canonical text as Jackson writes it, key by key and value by value (the definition). */
  private static String reference(JsonNode n) {
    StringBuilder sb = new StringBuilder();
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
        sb.append(TextNode.valueOf(e.getKey()).toString()).append(':');
        sb.append(reference(e.getValue()));
      }
      sb.append('}');
    } else if (n.isArray()) {
      sb.append('[');
      for (int i = 0; i < n.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        sb.append(reference(n.get(i)));
      }
      sb.append(']');
    } else {
      sb.append(n.toString());
    }
    return sb.toString();
  }

  @Test
  void everyCharacterIsQuotedAsJacksonQuotesIt() {
    for (int c = 0; c <= 0xFFFF; c++) {
      String s = "a" + (char) c + "b";
      StringBuilder sb = new StringBuilder();
      ItemDigests.quote(s, sb);
      assertThat(sb.toString()).as("U+%04X", c).isEqualTo(TextNode.valueOf(s).toString());
    }
  }

  @Test
  void canonicalTextIsJacksonsWithSortedKeys() throws Exception {
    Random rnd = new Random(42);
    String alphabet = "ab\"\\\n\t\r\b\f\u0000\u001f\u007f/é€\uD83D\uDE00\uD800 <>&'";
    for (int round = 0; round < 500; round++) {
      StringBuilder text = new StringBuilder();
      for (int i = rnd.nextInt(40); i > 0; i--) {
        text.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
      }
      var o = Json.object();
      o.put("role", "user");
      o.put("z" + text, text.toString());
      o.put("content", text.toString());
      o.put("n", rnd.nextInt());
      o.put("x", rnd.nextDouble());
      o.putNull("nothing");
      o.put("flag", rnd.nextBoolean());
      o.putArray("parts").add(text.toString()).add(1.5).addObject().put("b", "c").put("a", "d");
      JsonNode parsed = Json.parse(Json.write(o));
      assertThat(ItemDigests.canonical(parsed)).isEqualTo(reference(parsed));
    }
  }

  @Test
  void keyOrderAndWhitespaceDoNotChangeTheDigestValuesDo() throws Exception {
    JsonNode a = Json.parse("{\"role\":\"user\",\"content\":\"hi\\nthere\"}");
    JsonNode b = Json.parse("{ \"content\" : \"hi\\nthere\",\n \"role\" : \"user\" }");
    JsonNode c = Json.parse("{\"role\":\"user\",\"content\":\"hi\\nthere!\"}");
    assertThat(ItemDigests.of(a)).isEqualTo(ItemDigests.of(b)).isNotEqualTo(ItemDigests.of(c));
    assertThat(ItemDigests.chain(List.of(a, c)).get(0))
        .isNotEqualTo(ItemDigests.chain(List.of(c, a)).get(0));
  }

  @Test
  void aMovedCacheControlMarkerDoesNotChangeTheDigest() throws Exception {
    JsonNode marked =
        Json.parse(
            "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\","
                + "\"cache_control\":{\"type\":\"ephemeral\"}}]}");
    JsonNode plain =
        Json.parse("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}");
    JsonNode other =
        Json.parse("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"ho\"}]}");
    assertThat(ItemDigests.of(marked))
        .isEqualTo(ItemDigests.of(plain))
        .isNotEqualTo(ItemDigests.of(other));
    assertThat(ItemDigests.canonical(marked)).doesNotContain("cache_control");
  }

  @Test
  void aChainDigestCoversEveryItemBeforeIt() throws Exception {
    JsonNode first = Json.parse("{\"role\":\"system\",\"content\":\"one\"}");
    JsonNode other = Json.parse("{\"role\":\"system\",\"content\":\"two\"}");
    JsonNode same = Json.parse("{\"role\":\"user\",\"content\":\"go on\"}");
    List<String> a = ItemDigests.chain(List.of(first, same, same));
    List<String> b = ItemDigests.chain(List.of(other, same, same));
    for (int i = 0; i < 3; i++) {
      assertThat(a.get(i)).as("chain digest %d", i).isNotEqualTo(b.get(i));
    }
    assertThat(a.get(1)).isNotEqualTo(a.get(2));
    // the definition: c[i] = sha256(c[i-1] | d[i]), c[-1] = ""
    String expected = "";
    for (JsonNode item : List.of(first, same, same)) {
      expected = sha256Hex(expected + "|" + ItemDigests.of(item));
    }
    assertThat(a.get(2)).isEqualTo(expected);
    assertThat(ItemDigests.of(first))
        .isEqualTo(sha256Hex("{\"content\":\"one\",\"role\":\"system\"}"));
  }

  private static String sha256Hex(String s) throws Exception {
    return java.util.HexFormat.of()
        .formatHex(
            java.security.MessageDigest.getInstance("SHA-256")
                .digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }
}
