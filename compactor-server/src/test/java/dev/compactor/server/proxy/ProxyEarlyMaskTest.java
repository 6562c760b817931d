package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.policy.CostPlanner;
import dev.compactor.testkit.model.Reply;
import org.junit.jupiter.api.Test;

/**
 * A continued conversation counted from the previous request's count still gets the cost planner's
 * early masking: it grows past {@link CostPlanner#planFrom} of the budget through continued
 * requests and is masked on the same request as the same body sent as a new conversation (which the
 * compactor always measures and plans), with the same counts on every request before.
 */
class ProxyEarlyMaskTest extends LocalProxyTest {
  private static final long BUDGET = 10_000;

  @Override
  Reply reply(int n) {
    return Reply.toolCall("call_" + n, "bash", "{\"cmd\":\"cat src/File" + n + ".java\"}");
  }

  @Test
  void earlyMaskingComesOnTheSameRequestAsWithoutTheShortcut() {
    ObjectNode body = ProxyFixture.JSON.createObjectNode();
    body.put("model", "gpt-4o-mini");
    ArrayNode messages = body.putArray("messages");
    messages.addObject().put("role", "system").put("content", "You are a careful build engineer.");
    messages.addObject().put("role", "user").put("content", "The build fails; find out why.");
    long planFrom = CostPlanner.DEFAULTS.planFrom(BUDGET);
    int masked = -1;
    boolean belowPlanning = false;
    boolean planningWithoutMask = false;
    for (int turn = 0; turn < 30 && masked < 0; turn++) {
      String json = body.toString();
      ProxyFixture.Answer whole =
          f.post(
              "/v1/chat/completions",
              json,
              "X-Compactor-Conversation",
              "check-" + turn,
              "X-Compactor-Budget",
              Long.toString(BUDGET));
      ProxyFixture.Answer a =
          f.post(
              "/v1/chat/completions",
              json,
              "X-Compactor-Conversation",
              "main",
              "X-Compactor-Budget",
              Long.toString(BUDGET));
      assertThat(a.status()).as(a.body()).isEqualTo(200);
      assertThat(whole.status()).as(whole.body()).isEqualTo(200);
      assertThat(a.header(ProxyRoutes.ACTION))
          .as("turn %d: the continued conversation acts as a new one would", turn)
          .isEqualTo(whole.header(ProxyRoutes.ACTION));
      assertThat(a.header(ProxyRoutes.TOKENS_BEFORE))
          .as("turn %d: the count", turn)
          .isEqualTo(whole.header(ProxyRoutes.TOKENS_BEFORE));
      long before = Long.parseLong(a.header(ProxyRoutes.TOKENS_BEFORE));
      assertThat(before).as("turn %d stays below the budget", turn).isLessThan(BUDGET);
      if (a.header(ProxyRoutes.ACTION).equals("masked")) {
        masked = turn;
        assertThat(Long.parseLong(a.header(ProxyRoutes.TOKENS_AFTER))).isLessThan(before);
      } else {
        assertThat(a.header(ProxyRoutes.ACTION)).isEqualTo("none");
        belowPlanning |= before < planFrom;
        planningWithoutMask |= before >= planFrom;
      }
      JsonNode m = a.json().path("choices").path(0).path("message");
      messages.add(m);
      StringBuilder output = new StringBuilder();
      for (int line = 0; line < 40; line++) {
        output
            .append("src/File")
            .append(turn)
            .append(".java:")
            .append(line)
            .append(": int value")
            .append(line)
            .append(" = compute(")
            .append(turn * 100 + line)
            .append(");\n");
      }
      messages
          .addObject()
          .put("role", "tool")
          .put("tool_call_id", m.get("tool_calls").get(0).get("id").asText())
          .put("content", output.toString());
    }
    assertThat(masked).as("the conversation is masked early, below the budget").isPositive();
    assertThat(belowPlanning).as("a request below %d tokens, the shortcut's", planFrom).isTrue();
    assertThat(planningWithoutMask).as("a request the planner saw without masking").isTrue();
    assertThat(f.model.rejections()).isEmpty();
  }
}
