package dev.compactor.wire.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.wire.golden.Golden;
import dev.compactor.wire.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Chat Completions request body (every role, content parts, parallel tool calls, tool results,
 * reasoning, fields the codec does not model) read into messages and written back.
 */
class ChatCompletionsGoldenTest {

  private static final JsonNode REQUEST = Golden.json("chat-completions-request.json");
  private static final JsonNode MESSAGES = REQUEST.get("messages");

  @Test
  void decode_givesTheGoldenMessages() {
    ChatCompletionsMessages.Decoded d = ChatCompletionsMessages.decode(MESSAGES, "messages");

    assertThat(d.skipped()).isEmpty();
    assertThat(d.derivedIds()).isZero();
    Golden.assertMatches(
        "chat-completions-request.messages.jsonl", Golden.nativeLines(d.messages()));
  }

  @Test
  void encode_givesWhatTheProviderAccepts() {
    ArrayNode out = Json.array();
    for (Message m : ChatCompletionsMessages.decode(MESSAGES, "messages").messages()) {
      out.add(ChatCompletionsMessages.encode(m));
    }
    Golden.assertMatches("chat-completions-request.encoded.json", Golden.pretty(out));
  }

  @Test
  void reencode_unchangedMessages_areTheSourceObjects() {
    List<Message> decoded = ChatCompletionsMessages.decode(MESSAGES, "messages").messages();
    for (int i = 0; i < decoded.size(); i++) {
      JsonNode source = MESSAGES.get(i);
      assertThat(Json.write(ChatCompletionsMessages.reencode(decoded.get(i), source)))
          .as("message %d", i)
          .isEqualTo(Json.write(source));
    }
  }

  @Test
  void reencode_changedMessage_isWrittenAfresh() {
    List<Message> decoded = ChatCompletionsMessages.decode(MESSAGES, "messages").messages();
    Message stubbed = decoded.get(4).withContent("[output removed]");

    JsonNode out = ChatCompletionsMessages.reencode(stubbed, MESSAGES.get(4));

    assertThat(Json.write(out))
        .isEqualTo(
            "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"[output removed]\"}");
    assertThat(ChatCompletionsMessages.reencode(stubbed, null)).isEqualTo(out);
  }

  @Test
  void decodeOfEncode_keepsWhatAModelSees() {
    List<Message> decoded = ChatCompletionsMessages.decode(MESSAGES, "messages").messages();
    ArrayNode encoded = Json.array();
    decoded.forEach(m -> encoded.add(ChatCompletionsMessages.encode(m)));

    List<Message> again = ChatCompletionsMessages.decode(encoded, "messages").messages();

    assertThat(again)
        .usingRecursiveFieldByFieldElementComparatorOnFields(
            "role", "content", "toolCalls", "toolCallId")
        .containsExactlyElementsOf(decoded);
    assertThat(decoded.get(0).role()).isEqualTo(Role.SYSTEM);
  }
}
