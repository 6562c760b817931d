package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.testkit.model.Reply;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A continued conversation is counted from the previous request's count plus its new messages when
 * that is below the budget: every turn's {@code x-compactor-tokens-before} equals the count of the
 * same body sent as a new conversation (counted whole), through a tool loop.
 */
class ProxyCountsTest extends LocalProxyTest {
  @Override
  Reply reply(int n) {
    return n % 2 == 0
        ? Reply.toolCall("call_" + n, "bash", "{\"cmd\":\"cat file" + n + ".txt\"}")
        : Reply.text("Step " + n + " is done; the build passes now.");
  }

  @ParameterizedTest
  @ValueSource(strings = {"openai", "anthropic"})
  void everyTurnCountsAsTheWholeConversationWould(String api) {
    boolean anthropic = api.equals("anthropic");
    String path = anthropic ? "/v1/messages" : "/v1/chat/completions";
    ObjectNode body = ProxyFixture.JSON.createObjectNode();
    body.put("model", anthropic ? "claude-sonnet-4-5" : "gpt-4o-mini");
    if (anthropic) {
      body.put("max_tokens", 256);
      body.put("system", "You are a careful build engineer.");
    }
    ArrayNode messages = body.putArray("messages");
    if (!anthropic) {
      messages
          .addObject()
          .put("role", "system")
          .put("content", "You are a careful build engineer.");
    }
    messages.addObject().put("role", "user").put("content", "The build fails; find out why.");
    for (int turn = 0; turn < 8; turn++) {
      String json = body.toString();
      ProxyFixture.Answer a =
          f.post(path, json, "X-Compactor-Conversation", "main", "X-Compactor-Budget", "100000");
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(a.header(ProxyRoutes.ACTION)).isEqualTo("none");
      ProxyFixture.Answer whole =
          f.post(
              path,
              json,
              "X-Compactor-Conversation",
              "check-" + turn,
              "X-Compactor-Budget",
              "100000");
      assertThat(whole.status()).isEqualTo(200);
      assertThat(a.header(ProxyRoutes.TOKENS_BEFORE))
          .as("turn %d: the count of the continued conversation", turn)
          .isEqualTo(whole.header(ProxyRoutes.TOKENS_BEFORE))
          .isEqualTo(a.header(ProxyRoutes.TOKENS_AFTER));
      JsonNode reply = a.json();
      if (anthropic) {
        ObjectNode echo = messages.addObject().put("role", "assistant");
        echo.set("content", reply.get("content"));
        JsonNode use = null;
        for (JsonNode block : reply.get("content")) {
          if (block.path("type").asText().equals("tool_use")) {
            use = block;
          }
        }
        ObjectNode next = messages.addObject().put("role", "user");
        if (use != null) {
          next.putArray("content")
              .addObject()
              .put("type", "tool_result")
              .put("tool_use_id", use.get("id").asText())
              .put("content", "output of turn " + turn + ": 3 files, 120 lines");
        } else {
          next.put("content", "Good. What next after turn " + turn + "?");
        }
      } else {
        JsonNode m = reply.path("choices").path(0).path("message");
        messages.add(m);
        if (m.has("tool_calls")) {
          messages
              .addObject()
              .put("role", "tool")
              .put("tool_call_id", m.get("tool_calls").get(0).get("id").asText())
              .put("content", "output of turn " + turn + ": 3 files, 120 lines");
        } else {
          messages.addObject().put("role", "user").put("content", "Good. What next?");
        }
      }
    }
    assertThat(f.model.rejections()).isEmpty();
    assertThat(f.proxyStore.byKey("default", "main").orElseThrow().lastLength())
        .isGreaterThanOrEqualTo(15);
  }
}
