package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class WireApiTest {
  private static final Pattern CHAT_ID = Pattern.compile("msg-(\\d+)");
  private static final Pattern TURN_ID = Pattern.compile("msg-(\\d+)(?:-result-\\d+)?");

  private static int byPattern(String id, boolean results) {
    Matcher m = (results ? TURN_ID : CHAT_ID).matcher(id);
    return m.matches() ? Integer.parseInt(m.group(1)) : -1;
  }

  @Test
  void messageNumbersAreReadAsTheIdPatternsReadThem() {
    for (String id :
        List.of(
            "msg-0",
            "msg-17",
            "msg-007",
            "msg-3-result-0",
            "msg-3-result-12",
            "msg-3-result-",
            "msg-3-result-x",
            "msg-3-result-1x",
            "msg-3-resul-1",
            "msg-",
            "msg-x",
            "msg-12a",
            "msg--1",
            "system",
            "",
            "msg-٣",
            "xmsg-1",
            "MSG-1")) {
      for (boolean results : new boolean[] {false, true}) {
        assertThat(WireApi.messageNumber(id, results))
            .as("%s, results %s", id, results)
            .isEqualTo(byPattern(id, results));
      }
    }
    assertThat(WireApi.messageNumber("msg-99999999999", false)).isEqualTo(-1);
  }

  /**
   * The next turn's messages, taking the leading ones from the previous turn's, are those of
   * decoding it whole: over random conversations of text, parts, tool calls with and without ids,
   * tool results, unknown roles and fields, and legacy function calls (after which nothing is
   * taken).
   */
  @Test
  void aContinuedTurnDecodesAsTheWholeConversation() throws Exception {
    Random rnd = new Random(11);
    for (int run = 0; run < 200; run++) {
      ParsedBody earlier = null;
      ArrayNode messages = Json.array();
      for (int turn = 0; turn < 6; turn++) {
        for (int k = 1 + rnd.nextInt(4); k > 0; k--) {
          messages.add(randomMessage(rnd, messages.size()));
        }
        ObjectNode body = Json.object().put("model", "gpt-4o");
        body.set("messages", messages.deepCopy());
        byte[] raw = Json.write(body).getBytes(StandardCharsets.UTF_8);
        ParsedBody parsed = ParsedBody.parse(raw, earlier);
        List<JsonNode> items = WireApi.CHAT_COMPLETIONS.items(parsed.root);
        WireApi.DecodedItems d =
            WireApi.CHAT_COMPLETIONS.decodeContinuing(
                items, earlier == null ? null : earlier.decoded);
        assertThat(d.messages())
            .as("run %d turn %d", run, turn)
            .isEqualTo(WireApi.CHAT_COMPLETIONS.decode(items));
        parsed.decoded = d;
        earlier = parsed;
      }
    }
  }

  private static ObjectNode randomMessage(Random rnd, int i) {
    ObjectNode m = Json.object();
    switch (rnd.nextInt(7)) {
      case 0 -> m.put("role", "user").put("content", "question " + i);
      case 1 -> {
        m.put("role", "user");
        m.putArray("content")
            .add(Json.object().put("type", "text").put("text", "part " + i))
            .add(Json.object().put("type", "image_url").put("image_url", "u" + i));
      }
      case 2 -> {
        m.put("role", "assistant").putNull("content");
        ArrayNode calls = m.putArray("tool_calls");
        for (int k = 0; k < 1 + rnd.nextInt(2); k++) {
          ObjectNode c = calls.addObject().put("type", "function");
          if (rnd.nextBoolean()) {
            c.put("id", "call_" + i + "_" + k);
          }
          c.putObject("function").put("name", "bash").put("arguments", "{\"n\":" + k + "}");
        }
      }
      case 3 -> m.put("role", "tool").put("tool_call_id", "call_" + i).put("content", "out " + i);
      case 4 -> {
        if (rnd.nextInt(4) == 0) {
          m.put("role", "assistant")
              .putObject("function_call")
              .put("name", "f")
              .put("arguments", "{}");
        } else {
          m.put("role", "function").put("name", "f").put("content", "result " + i);
        }
      }
      case 5 -> m.put("role", "critic").put("content", "note " + i).put("x_field", i);
      default -> m.put("role", "assistant").put("content", "answer " + i).put("model", "gpt-4o");
    }
    return m;
  }
}
