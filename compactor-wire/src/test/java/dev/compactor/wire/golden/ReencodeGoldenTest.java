package dev.compactor.wire.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.anthropic.AnthropicMessages;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ResponsesItems;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Forwarding a request: unchanged turns, items and system prompts go out as their source JSON (with
 * the fields no codec models, such as {@code cache_control}); changed ones are written afresh.
 */
class ReencodeGoldenTest {

  private static final JsonNode ANTHROPIC = Golden.json("anthropic-request.json");
  private static final JsonNode RESPONSES = Golden.json("responses-request.json");

  private static List<Message> turn(JsonNode source) {
    return AnthropicMessages.decode(Json.array().add(source)).messages();
  }

  @Test
  void anthropic_everyUnchangedTurn_isItsSource() {
    for (JsonNode source : ANTHROPIC.get("messages")) {
      assertThat(Json.write(AnthropicMessages.reencodeTurn(turn(source), source)))
          .isEqualTo(Json.write(source));
    }
  }

  @Test
  void anthropic_changedToolResult_turnIsWrittenAfresh_withoutTheStaleCacheControl() {
    JsonNode source = ANTHROPIC.get("messages").get(2);
    List<Message> turn = turn(source);
    List<Message> stubbed = List.of(turn.get(0), turn.get(1).withContent("[removed]"), turn.get(2));

    JsonNode out = AnthropicMessages.reencodeTurn(stubbed, source);

    assertThat(Json.write(out))
        .isEqualTo(
            "{\"role\":\"user\",\"content\":["
                + "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"README.md\\nsrc\\n\"},"
                + "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_2\",\"content\":\"[removed]\"},"
                + "{\"type\":\"text\",\"text\":\"And the tests?\"}]}");
    assertThat(AnthropicMessages.reencodeTurn(List.of(), source)).isNull();
    assertThatThrownBy(
            () ->
                AnthropicMessages.reencodeTurn(
                    List.of(Message.user("a"), Message.assistant("b")), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one side");
  }

  @Test
  void anthropic_system_keepsItsBlocksWhileUnchanged() {
    JsonNode system = ANTHROPIC.get("system");
    Message decoded = AnthropicMessages.decode(ANTHROPIC).messages().get(0);

    assertThat(AnthropicMessages.reencodeSystem(decoded, system)).isEqualTo(system);
    assertThat(AnthropicMessages.reencodeSystem(decoded.withContent("Be brief."), system))
        .isEqualTo(Json.NODES.textNode("Be brief."));
  }

  @Test
  void responses_everyUnchangedItem_isItsSource_andChangedOnesAreWrittenAfresh() {
    JsonNode input = RESPONSES.get("input");
    int carried = 0;
    for (JsonNode item : input) {
      List<Message> decoded = ResponsesItems.decode(Json.array().add(item), null, null);
      if (decoded.isEmpty()) {
        continue; // reasoning items are not carried: a forwarder passes them through
      }
      carried++;
      assertThat(ResponsesItems.reencode(decoded.get(0), item)).containsExactly(item);
    }
    assertThat(carried).isEqualTo(7);

    JsonNode output = input.get(3);
    Message changed = ResponsesItems.decode(Json.array().add(output), null, null).get(0);
    assertThat(Json.write(ResponsesItems.reencode(changed.withContent("[removed]"), output)))
        .isEqualTo(
            "[{\"type\":\"function_call_output\",\"call_id\":\"call_1\",\"output\":\"[removed]\"}]");
  }
}
