package dev.compactor.wire.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.wire.golden.Golden;
import dev.compactor.wire.json.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Responses input items (messages, function calls and outputs, reasoning, compaction). */
class ResponsesGoldenTest {

  private static final JsonNode REQUEST = Golden.json("responses-request.json");

  @Test
  void decode_givesTheGoldenMessages() {
    List<Message> messages = ResponsesItems.decode(REQUEST.get("input"), "openai", "gpt-5");

    // decoded messages get random ids; number them for the golden file
    List<Message> numbered = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      numbered.add(messages.get(i).withId(MessageId.of("item-" + i)));
    }
    Golden.assertMatches("responses-request.messages.jsonl", Golden.nativeLines(numbered));
  }

  @Test
  void encode_givesTheGoldenInput_andKeepsCompactionItemsVerbatim() {
    List<Message> messages = new ArrayList<>();
    messages.add(Message.system(REQUEST.get("instructions").asText()));
    messages.addAll(ResponsesItems.decode(REQUEST.get("input"), "openai", "gpt-5"));

    ResponsesItems.Input in = ResponsesItems.encode(messages);

    assertThat(in.instructions()).isEqualTo("You are a coding agent.");
    ObjectNode body = Json.object();
    body.put("instructions", in.instructions());
    body.set("input", in.items());
    Golden.assertMatches("responses-request.encoded.json", Golden.pretty(body));
    JsonNode compaction = REQUEST.get("input").get(5);
    assertThat(in.items()).contains(compaction);
    assertThat(messages.stream().mapToInt(m -> ProviderCompaction.itemsOf(m).size()).sum())
        .isEqualTo(1);
  }
}
