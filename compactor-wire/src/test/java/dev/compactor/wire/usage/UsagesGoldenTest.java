package dev.compactor.wire.usage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Usage;
import dev.compactor.wire.golden.Golden;
import dev.compactor.wire.json.Json;
import org.junit.jupiter.api.Test;

/** The usage shapes of the research notes, read by their own reader and by {@link Usages#parse}. */
class UsagesGoldenTest {

  @Test
  void documentedUsageObjects_giveTheirCounts() {
    JsonNode cases = Golden.json("usages.json");
    assertThat(cases.size()).isGreaterThanOrEqualTo(5);
    for (JsonNode c : cases) {
      JsonNode body = c.get("body");
      JsonNode e = c.get("expected");
      Usage expected =
          new Usage(
              e.get("input").longValue(),
              e.get("output").longValue(),
              e.get("cacheRead").longValue(),
              e.get("cacheWrite").longValue(),
              e.get("reasoning").longValue());
      Usage byShape =
          switch (c.get("shape").asText()) {
            case "chat_completions" -> Usages.chatCompletions(body);
            case "responses" -> Usages.responses(body);
            default -> Usages.anthropic(body);
          };
      String name = c.get("name").asText();
      assertThat(byShape).as(name).isEqualTo(expected);
      assertThat(Usages.parse(body)).as(name + ", told apart by its fields").isEqualTo(expected);
    }
  }

  @Test
  void countsAsStrings_negativeCounts_andNoCounts() throws Exception {
    assertThat(
            Usages.chatCompletions(
                Json.parse("{\"prompt_tokens\":\"12\",\"completion_tokens\":-3}")))
        .isEqualTo(new Usage(12, 0, 0, 0, 0));
    assertThat(Usages.parse(Json.parse("{\"total_tokens\":5}"))).isNull();
    assertThat(Usages.parse(Json.parse("[]"))).isNull();
    assertThat(Usages.anthropic(Json.parse("{}"))).isEqualTo(new Usage(0, 0, 0, 0, 0));
  }

  @Test
  void anthropicCompactionIterations_areSummed() throws Exception {
    JsonNode u =
        Json.parse(
            "{\"input_tokens\":5,\"output_tokens\":1,\"iterations\":["
                + "{\"type\":\"compaction\",\"input_tokens\":100,\"output_tokens\":10},"
                + "{\"type\":\"message\",\"input_tokens\":7,\"output_tokens\":2},"
                + "{\"type\":\"compaction\",\"input_tokens\":50,\"output_tokens\":5,"
                + "\"cache_read_input_tokens\":3}]}");
    assertThat(Usages.anthropicCompaction(u)).isEqualTo(new Usage(150, 15, 3, 0, 0));
    assertThat(Usages.anthropicCompaction(Json.parse("{\"input_tokens\":1}"))).isNull();
  }
}
