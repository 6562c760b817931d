package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link ParsedBody}'s spans and {@link ChainMemo}: always the chain {@link ItemDigests} gives. */
class ChainMemoTest {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] raw, long[] span) {
    return new String(raw, (int) span[0], (int) (span[1] - span[0]), StandardCharsets.UTF_8);
  }

  @Test
  void theTreeIsTheTreeReadersAndEverySpanHoldsItsValue() throws Exception {
    String body =
        "{ \"model\" :\"gpt-4o\",\"temperature\": 0.70, \"system\": \"Be brief \\\"now\\\" ü\","
            + " \"messages\": [ {\"role\":\"user\", \"content\": [{\"type\":\"text\",\"text\":"
            + "\"a\\nb\"}]} ,{\"role\":\"assistant\",\"content\":\"\u00e9\u4e2d\"}, 7, null, \"s\""
            + " ], \"n\": null, \"x\": {\"y\": [1, 2.50]} }";
    byte[] raw = utf8(body);
    ParsedBody p = ParsedBody.parse(raw);
    assertThat(p.root).isEqualTo(Json.MAPPER.readTree(raw));
    assertThat(p.root.toString()).isEqualTo(Json.MAPPER.readTree(raw).toString());
    JsonNode messages = p.root.get("messages");
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      if (m.isContainerNode() || m.isTextual()) {
        assertThat(Json.MAPPER.readTree(text(raw, p.span(m)))).as("messages[%d]", i).isEqualTo(m);
      } else {
        assertThat(p.span(m)).as("a shared node is never placed").isNull();
      }
    }
    for (String field : List.of("system", "messages", "x")) {
      JsonNode v = p.root.get(field);
      assertThat(Json.MAPPER.readTree(text(raw, p.span(v)))).as(field).isEqualTo(v);
    }
    assertThat(p.span(p.root.get("n"))).isNull();
  }

  @Test
  void whatTheReaderDoesNotTakeApartIsReadWholeWithoutSpans() throws Exception {
    for (String body :
        List.of(
            "[1, 2]",
            "\"text\"",
            "not json",
            "",
            "{\"messages\": [1], \"messages\": [2]}",
            "{\"a\": 1} trailing")) {
      ParsedBody p = ParsedBody.parse(utf8(body));
      JsonNode expected;
      try {
        expected = Json.MAPPER.readTree(utf8(body));
        if (expected != null && expected.isMissingNode()) {
          expected = null;
        }
      } catch (java.io.IOException e) {
        expected = null;
      }
      assertThat(p.root).as(body).isEqualTo(expected);
    }
    byte[] utf16 = "{\"messages\": [{\"role\": \"user\"}]}".getBytes(StandardCharsets.UTF_16BE);
    ParsedBody p = ParsedBody.parse(utf16);
    assertThat(p.root).isEqualTo(Json.MAPPER.readTree(utf16));
    assertThat(p.span(p.root.get("messages").get(0))).isNull();
  }

  private static ObjectNode conversation(Random rnd, int n) {
    ObjectNode body = Json.object().put("model", "gpt-4o");
    ArrayNode messages = body.putArray("messages");
    for (int i = 0; i < n; i++) {
      messages
          .addObject()
          .put("role", i % 2 == 0 ? "user" : "assistant")
          .put(
              "content",
              "item " + i + " " + Long.toHexString(rnd.nextLong()) + " words".repeat(20));
    }
    return body;
  }

  private static List<JsonNode> items(ParsedBody p) throws WireApi.Unreadable {
    return WireApi.CHAT_COMPLETIONS.items(p.root);
  }

  @Test
  void aContinuedConversationReusesTheKeptChainAndGetsTheSameDigests() throws Exception {
    ChainMemo memo = new ChainMemo(ChainMemo.DEFAULT_MAX_BYTES);
    ObjectNode body = conversation(new Random(1), 50);
    ParsedBody first = ParsedBody.parse(utf8(body.toString()));
    assertThat(memo.chain("", first, items(first))).isEqualTo(ItemDigests.chain(items(first)));
    assertThat(memo.reused()).isZero();

    body.withArray("messages").addObject().put("role", "assistant").put("content", "reply");
    body.withArray("messages").addObject().put("role", "user").put("content", "next");
    ParsedBody next = ParsedBody.parse(utf8(body.toString()), first);
    assertThat(memo.chain("", next, items(next))).isEqualTo(ItemDigests.chain(items(next)));
    assertThat(memo.reused()).isEqualTo(50);
    assertThat(first.taken("messages")).isZero();
    assertThat(next.taken("messages"))
        .as("the leading messages are the first body's")
        .isEqualTo(50);
    for (int i = 0; i < 50; i++) {
      assertThat(next.root.get("messages").get(i)).isSameAs(first.root.get("messages").get(i));
    }
    assertThat(next.taken("model")).as("not an array").isZero();
    assertThat(ParsedBody.parse(utf8(body.toString()), next).taken("messages"))
        .as("the same bytes again: the whole array")
        .isEqualTo(52);
    assertThat(memo.kept()).as("the longer request replaces the one it extends").isEqualTo(1);

    // the same request again (a retry)
    ParsedBody again = ParsedBody.parse(utf8(body.toString()));
    assertThat(memo.chain("", again, items(again))).isEqualTo(ItemDigests.chain(items(again)));
    assertThat(memo.reused()).isEqualTo(50 + 52);
  }

  @Test
  void aOneByteChangeInAnOldItemIsDigestedAfresh() throws Exception {
    ChainMemo memo = new ChainMemo(ChainMemo.DEFAULT_MAX_BYTES);
    ObjectNode body = conversation(new Random(2), 40);
    String text = body.toString();
    ParsedBody first = ParsedBody.parse(utf8(text));
    List<String> before = memo.chain("", first, items(first));
    body.withArray("messages").addObject().put("role", "user").put("content", "next");
    String longer = body.toString();
    // one byte of item 7's content: same length, same first, middle and last bytes (the same key
    // in the memo's index), so only comparing the bytes tells the two apart
    int at = longer.indexOf("item 7 ") + 5;
    byte[] edited = utf8(longer);
    edited[at] = (byte) (edited[at] == '7' ? '8' : '7');
    ParsedBody e = ParsedBody.parse(edited);
    List<String> chain = memo.chain("", e, items(e));
    assertThat(chain).isEqualTo(ItemDigests.chain(items(e)));
    assertThat(chain.subList(0, 7)).isEqualTo(before.subList(0, 7));
    assertThat(chain.get(7)).isNotEqualTo(before.get(7));
    assertThat(chain.get(39)).isNotEqualTo(before.get(39));
    assertThat(memo.reused()).isZero();
  }

  @Test
  void randomEditsAlwaysGiveTheChainOfTheItems() throws Exception {
    Random rnd = new Random(3);
    ChainMemo memo = new ChainMemo(1 << 16);
    List<byte[]> sent = new ArrayList<>();
    for (int round = 0; round < 300; round++) {
      byte[] raw;
      if (sent.isEmpty() || rnd.nextInt(4) == 0) {
        raw = utf8(conversation(rnd, 1 + rnd.nextInt(30)).toString());
      } else {
        JsonNode earlier = Json.MAPPER.readTree(sent.get(rnd.nextInt(sent.size())));
        ObjectNode body = (ObjectNode) earlier.deepCopy();
        ArrayNode messages = body.withArray("messages");
        switch (rnd.nextInt(4)) {
          case 0 -> messages.addObject().put("role", "user").put("content", "more " + round);
          case 1 ->
              ((ObjectNode) messages.get(rnd.nextInt(messages.size())))
                  .put("content", "changed " + round);
          case 2 -> messages.remove(messages.size() - 1);
          default -> {
            // the same items, written with other whitespace: other bytes, same digests
            raw = utf8(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(body));
            check(memo, raw);
            sent.add(raw);
            continue;
          }
        }
        if (messages.isEmpty()) {
          messages.addObject().put("role", "user").put("content", "again");
        }
        raw = utf8(body.toString());
      }
      check(memo, raw);
      sent.add(raw);
    }
    assertThat(memo.reused()).isPositive();
    assertThat(memo.keptBytes()).isLessThanOrEqualTo(1 << 16);
  }

  private static void check(ChainMemo memo, byte[] raw) throws Exception {
    ParsedBody p = ParsedBody.parse(raw);
    assertThat(memo.chain("", p, items(p))).isEqualTo(ItemDigests.chain(items(p)));
  }

  @Test
  void anthropicSystemAndResponsesInstructionsAreWrappedItemsOfTheirOwn() throws Exception {
    ChainMemo memo = new ChainMemo(ChainMemo.DEFAULT_MAX_BYTES);
    String a =
        "{\"model\":\"m\",\"system\":\"S\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
    ParsedBody pa = ParsedBody.parse(utf8(a));
    List<JsonNode> ia = WireApi.ANTHROPIC_MESSAGES.items(pa.root);
    assertThat(memo.chain("", pa, ia)).isEqualTo(ItemDigests.chain(ia));
    // the same bytes under another name are another item: {"instructions": "S"}
    String r =
        "{\"model\":\"m\",\"instructions\":\"S\",\"input\":[{\"role\":\"user\",\"content\":\"x\"}]}";
    ParsedBody pr = ParsedBody.parse(utf8(r));
    List<JsonNode> ir = WireApi.RESPONSES.items(pr.root);
    List<String> chain = memo.chain("", pr, ir);
    assertThat(chain).isEqualTo(ItemDigests.chain(ir));
    assertThat(chain.get(0)).isNotEqualTo(ItemDigests.chain(ia).get(0));
    String a2 =
        a.replace(
            "]}",
            ",{\"role\":\"assistant\",\"content\":\"y\"},{\"role\":\"user\",\"content\":\"z\"}]}");
    ParsedBody pa2 = ParsedBody.parse(utf8(a2));
    List<JsonNode> ia2 = WireApi.ANTHROPIC_MESSAGES.items(pa2.root);
    assertThat(memo.chain("", pa2, ia2)).isEqualTo(ItemDigests.chain(ia2));
    assertThat(memo.reused()).isEqualTo(2);
  }

  @Test
  void nothingIsKeptWithABoundOfZero() throws Exception {
    ChainMemo memo = new ChainMemo(0);
    ParsedBody p = ParsedBody.parse(utf8(conversation(new Random(4), 5).toString()));
    assertThat(memo.chain("", p, items(p))).isEqualTo(ItemDigests.chain(items(p)));
    assertThat(memo.chain("", p, items(p))).isEqualTo(ItemDigests.chain(items(p)));
    assertThat(memo.kept()).isZero();
    assertThat(memo.reused()).isZero();
    assertThat(Arrays.asList(memo.keptBytes())).containsExactly(0L);
  }

  /** The tree and spans of a body read after an earlier one's bytes are those read whole. */
  private static void sameAsWhole(byte[] raw, ParsedBody earlier) throws Exception {
    ParsedBody whole = ParsedBody.parse(raw);
    ParsedBody continued = ParsedBody.parse(raw, earlier);
    assertThat(continued.root).as(new String(raw, StandardCharsets.UTF_8)).isEqualTo(whole.root);
    if (whole.root != null && whole.root.isObject()) {
      whole
          .root
          .fields()
          .forEachRemaining(
              f -> {
                JsonNode w = f.getValue();
                JsonNode c = continued.root.get(f.getKey());
                assertThat(continued.span(c)).as(f.getKey()).isEqualTo(whole.span(w));
                if (w.isArray()) {
                  for (int i = 0; i < w.size(); i++) {
                    assertThat(continued.span(c.get(i)))
                        .as(f.getKey() + "[" + i + "]")
                        .isEqualTo(whole.span(w.get(i)));
                  }
                }
              });
    }
  }

  @Test
  void aBodyReadAfterAnEarlierOnesBytesIsTheBodyReadWhole() throws Exception {
    Random rnd = new Random(11);
    int reusedSome = 0;
    for (int round = 0; round < 400; round++) {
      ObjectNode body = Json.object();
      List<String> order = new ArrayList<>(List.of("model", "messages", "n", "tools", "flag"));
      java.util.Collections.shuffle(order, rnd);
      ObjectNode c = conversation(rnd, 1 + rnd.nextInt(20));
      for (String f : order) {
        switch (f) {
          case "model" -> body.put("model", "gpt-4o");
          case "messages" -> body.set("messages", c.get("messages"));
          case "n" -> body.put("n", rnd.nextInt(200));
          case "tools" -> body.putArray("tools").add(rnd.nextInt(50)).add("t").add(true);
          default -> body.put("flag", rnd.nextBoolean());
        }
      }
      byte[] first = utf8(body.toString());
      ParsedBody earlier = ParsedBody.parse(first);
      sameAsWhole(first, earlier);
      String text = body.toString();
      List<String> variants = new ArrayList<>();
      ArrayNode messages = body.withArray("messages");
      messages.addObject().put("role", "user").put("content", "more " + round);
      variants.add(body.toString());
      variants.add(body.toString().replace("\"n\":", "\"n\":1")); // a number made longer
      variants.add(text.replace("true", "truex"));
      variants.add(text + " x");
      variants.add(text.substring(0, text.length() - 1) + ",\"model\":\"again\"}");
      variants.add(text.substring(0, text.length() - 1) + ",\"messages\":[]}");
      variants.add(text.substring(0, rnd.nextInt(text.length())));
      variants.add(text.substring(0, text.length() - 1) + " , \"extra\" : [1, {\"a\": \"b\"}] }");
      ((ObjectNode) messages.get(rnd.nextInt(messages.size()))).put("content", "edited");
      variants.add(body.toString());
      variants.add(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(body));
      for (String v : variants) {
        byte[] raw = utf8(v);
        sameAsWhole(raw, earlier);
        if (ParsedBody.parse(raw, earlier).reused > 0) {
          reusedSome++;
        }
      }
    }
    assertThat(reusedSome).as("bodies read after an earlier one's bytes").isGreaterThan(1000);
  }

  @Test
  void theMemoFindsTheKeptBodyABodyBeginsWithInItsScopeOnly() throws Exception {
    ChainMemo memo = new ChainMemo(ChainMemo.DEFAULT_MAX_BYTES);
    ObjectNode body = conversation(new Random(5), 400);
    byte[] first = utf8(body.toString());
    assertThat(first.length).isGreaterThan(8192);
    ParsedBody p = ParsedBody.parse(first);
    memo.chain("tenant-a", p, items(p));
    body.withArray("messages").addObject().put("role", "user").put("content", "next");
    byte[] next = utf8(body.toString());
    assertThat(memo.earlier("tenant-a", next)).isSameAs(p);
    assertThat(memo.earlier("tenant-b", next)).as("another tenant's bodies").isNull();
    ParsedBody read = ParsedBody.parse(next, memo.earlier("tenant-a", next));
    assertThat(read.reused).isGreaterThan(first.length - 100);
    assertThat(read.root).isEqualTo(Json.MAPPER.readTree(next));
    assertThat(memo.earlier("tenant-a", utf8(conversation(new Random(6), 400).toString())))
        .as("a body that begins otherwise")
        .isNull();
  }
}
