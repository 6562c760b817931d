package dev.compactor.wire.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.json.MessageFormatException;
import dev.compactor.wire.tools.ToolDefinitions.Dialect;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ToolDefinitionsTest {

  private static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}";
  private static final ToolSpec READ = new ToolSpec("read_file", "Reads a file.", SCHEMA);
  private static final ToolSpec BARE = new ToolSpec("now", "", "");

  private static JsonNode json(String text) {
    JsonNode n = Json.tryParse(text);
    assertThat(n).as(text).isNotNull();
    return n;
  }

  private static String written(Dialect dialect, ToolSpec... tools) {
    ArrayNode array = Json.array();
    for (ToolSpec t : tools) {
      ToolDefinitions.add(array, t, dialect);
    }
    return array.toString();
  }

  @Test
  void chatCompletions_nestsTheFunction() {
    assertThat(written(Dialect.CHAT_COMPLETIONS, READ, BARE))
        .isEqualTo(
            "[{\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"description\":\"Reads"
                + " a file.\",\"parameters\":"
                + SCHEMA
                + "}},{\"type\":\"function\",\"function\":{\"name\":\"now\",\"parameters\":"
                + "{\"type\":\"object\",\"properties\":{}}}}]");
  }

  @Test
  void responses_isFlat() {
    assertThat(written(Dialect.RESPONSES, READ))
        .isEqualTo(
            "[{\"type\":\"function\",\"name\":\"read_file\",\"description\":\"Reads a file.\","
                + "\"parameters\":"
                + SCHEMA
                + "}]");
  }

  @Test
  void anthropic_putsTheSchemaUnderInputSchema() {
    assertThat(written(Dialect.ANTHROPIC, READ, BARE))
        .isEqualTo(
            "[{\"name\":\"read_file\",\"description\":\"Reads a file.\",\"input_schema\":"
                + SCHEMA
                + "},{\"name\":\"now\",\"input_schema\":{\"type\":\"object\",\"properties\":{}}}]");
  }

  @Test
  void aSchemaThatIsNotAnObject_isRefusedNamingTheTool() {
    ToolSpec bad = new ToolSpec("t", "", "[1, 2]");
    assertThatThrownBy(() -> ToolDefinitions.schema(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tool \"t\": jsonSchema is not a JSON object: [1, 2]");
  }

  @ParameterizedTest
  @CsvSource({"CHAT_COMPLETIONS", "RESPONSES"})
  void whatOpenAiShapesWrite_readsBackAsTheSameTools(Dialect dialect) {
    JsonNode tools = json(written(dialect, READ, BARE));
    assertThat(ToolDefinitions.read(tools))
        .containsExactly(READ, new ToolSpec("now", "", "{\"type\":\"object\",\"properties\":{}}"));
  }

  @Test
  void read_withoutDescriptionOrParameters_givesEmptyOnes() {
    assertThat(ToolDefinitions.read(json("[{\"name\":\"x\",\"parameters\":null}]")))
        .isEqualTo(List.of(new ToolSpec("x", "", "")));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"name\":\"x\"}|tools must be an array",
        "[{\"name\":\"x\"}, 3]|tools[1] must be an object",
        "[{\"function\":{\"description\":\"d\"}}]|tools[0].name is required",
        "[{\"name\":\"  \"}]|tools[0].name is required",
        "[{\"name\":\"x\",\"parameters\":\"{}\"}]|tools[0].parameters must be a JSON schema object"
      })
  void read_refusesWhatIsNotAToolListNamingTheEntry(String json, String message) {
    assertThatThrownBy(() -> ToolDefinitions.read(json(json)))
        .isInstanceOf(MessageFormatException.class)
        .hasMessage(message);
  }
}
