package dev.compactor.wire.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.wire.golden.Golden;
import dev.compactor.wire.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An Anthropic Messages request body (system blocks with cache_control, thinking and redacted
 * thinking, parallel tool_use, tool_result with text blocks and extra fields, trailing user text).
 */
class AnthropicGoldenTest {

  private static final JsonNode REQUEST = Golden.json("anthropic-request.json");

  @Test
  void decode_givesTheGoldenMessages() {
    AnthropicMessages.Decoded d = AnthropicMessages.decode(REQUEST);

    assertThat(d.skipped()).isEmpty();
    Golden.assertMatches("anthropic-request.messages.jsonl", Golden.nativeLines(d.messages()));
  }

  @Test
  void encode_givesTheGoldenBody() {
    AnthropicMessages.Conversation c =
        AnthropicMessages.encode(AnthropicMessages.decode(REQUEST).messages(), "(start)");

    ObjectNode body = Json.object();
    body.put("system", c.system());
    body.set("messages", c.messages());
    Golden.assertMatches("anthropic-request.encoded.json", Golden.pretty(body));
  }

  @Test
  void encodeOfDecode_keepsTurnsBlocksAndSignedThinking() {
    AnthropicMessages.Conversation c =
        AnthropicMessages.encode(AnthropicMessages.decode(REQUEST).messages(), "(start)");
    JsonNode original = REQUEST.get("messages");

    assertThat(c.messages()).hasSameSizeAs(original);
    for (int i = 0; i < original.size(); i++) {
      assertThat(c.messages().get(i).get("role")).isEqualTo(original.get(i).get("role"));
    }
    // the assistant turn comes back block for block
    assertThat(c.messages().get(1).get("content")).isEqualTo(original.get(1).get("content"));

    List<Message> again =
        AnthropicMessages.decode(
                Json.object().put("system", c.system()).set("messages", c.messages()))
            .messages();
    List<Message> first = AnthropicMessages.decode(REQUEST).messages();
    assertThat(again)
        .usingRecursiveFieldByFieldElementComparatorOnFields(
            "role", "content", "reasoning", "toolCalls", "toolCallId")
        .containsExactlyElementsOf(first);
    assertThat(first.get(0).role()).isEqualTo(Role.SYSTEM);
  }
}
