package dev.compactor.wire.error;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.wire.golden.Golden;
import dev.compactor.wire.json.Json;
import org.junit.jupiter.api.Test;

/** The error bodies documented in the research notes, read as the clients read them. */
class ErrorBodiesGoldenTest {

  @Test
  void documentedErrorBodies_giveTheirFields() {
    JsonNode cases = Golden.json("errors.json");
    assertThat(cases.size()).isGreaterThanOrEqualTo(9);
    for (JsonNode c : cases) {
      String body = Json.write(c.get("body"));
      ErrorFields f =
          "anthropic".equals(c.get("dialect").asText())
              ? ErrorBodies.anthropic(body)
              : ErrorBodies.openAi(body);
      JsonNode e = c.get("expected");
      assertThat(f)
          .as(c.get("name").asText())
          .isEqualTo(
              new ErrorFields(
                  e.get("message").textValue(),
                  e.get("type").textValue(),
                  e.get("code").textValue(),
                  e.get("promptTokens").isNull() ? null : e.get("promptTokens").longValue(),
                  e.get("contextWindow").isNull() ? null : e.get("contextWindow").longValue()));
    }
  }

  @Test
  void aBodyThatIsNotJson_isTheMessage_cutTo1000Characters() {
    assertThat(ErrorBodies.openAi("  upstream timed out \n").message())
        .isEqualTo("upstream timed out");
    assertThat(ErrorBodies.anthropic("x".repeat(1500)).message()).hasSize(1000);
    assertThat(ErrorBodies.openAi("")).isEqualTo(ErrorFields.NONE);
    assertThat(ErrorBodies.openAi("{\"unrelated\":1}")).isEqualTo(ErrorFields.NONE);
  }

  @Test
  void openAiStyle_detailAndFailedResponse() {
    assertThat(ErrorBodies.openAi("{\"detail\":\"Not Found\"}").message()).isEqualTo("Not Found");
    assertThat(
            ErrorBodies.openAi(
                "{\"response\":{\"status\":\"failed\",\"error\":{\"code\":\"server_error\","
                    + "\"message\":\"boom\"}}}"))
        .isEqualTo(new ErrorFields("boom", null, "server_error", null, null));
  }
}
