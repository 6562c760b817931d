package dev.compactor.core.compaction.text;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CodeNamesTest {

  private static List<String> names(String text) {
    List<String> out = new ArrayList<>();
    CodeNames.forEach(text, (name, kind) -> out.add(kind + ":" + name));
    return out;
  }

  @Test
  void definedCalledCamelAndSnakeNames_withoutKeywordsBuiltinsAndCallIds() {
    assertThat(
            names(
                "class SchemaOpts:\n  def load_config(self):\n    return"
                    + " print(DataFrame.from_dict(x), len(y), toolu_01abc, get_value)"))
        .containsExactly(
            "DEFINED:SchemaOpts",
            "DEFINED:load_config",
            "CAMEL:DataFrame",
            "CALLED:from_dict",
            "SNAKE:get_value");
  }

  @Test
  void shortWords_plainWords_andNamesInsideLongerWords_areNotNames() {
    assertThat(names("an ok word, x_y, ab( and Html or HTML")).isEmpty();
  }

  @Test
  void identifiers_combineTextFeaturesAndCodeNames_andUndoJsonEscapes() {
    List<String> out = new ArrayList<>();
    Identifiers.forEach(
        dev.compactor.core.message.Message.builder(dev.compactor.core.message.Role.ASSISTANT)
            .content("")
            .toolCalls(
                List.of(
                    new dev.compactor.core.message.ToolCall(
                        "call_1",
                        "bash",
                        "{\"command\":\"grep -n \\\"parse_header\\\" src/parser.py\"}")))
            .build(),
        out::add);
    assertThat(out).contains("bash", "parse_header", "src/parser.py").doesNotContain("call_1");
    assertThat(Identifiers.listable("a`b")).isFalse();
    assertThat(Identifiers.listable("ok_name")).isTrue();
  }
}
