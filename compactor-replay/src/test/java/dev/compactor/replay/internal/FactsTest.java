package dev.compactor.replay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

class FactsTest {
  @Test
  void ofText_findsEveryKindOfFact() {
    String text =
        "Open src/marshmallow/fields.py and pom.xml: the ValidationError at line 1343 comes from"
            + " _deserialize(), see class TokenWindowChatMemory and \"missing required field\".";
    assertThat(Facts.ofText(text))
        .contains(
            "src/marshmallow/fields.py",
            "pom.xml",
            "ValidationError",
            "1343",
            "_deserialize",
            "TokenWindowChatMemory",
            "missing required field");
  }

  @Test
  void ofText_findsDefinitionsAndSnakeCase() {
    assertThat(Facts.ofText("def load_all(x):\n    class Foo:\n  get_value = 3"))
        .contains("load_all", "Foo", "get_value");
  }

  @Test
  void ofText_ignoresProseCommonBuiltinsShortNumbersAndCallIds() {
    assertThat(
            Facts.ofText(
                "We print(len(x)) and then return 42 items; call_00_abcdef finished. Then we"
                    + " continue."))
        .doesNotContain("print", "len", "42", "call_00_abcdef", "We", "Then", "continue");
  }

  @Test
  void of_scansToolCallArgumentsAsJsonStrings() {
    Message m =
        Message.assistant(
            "",
            List.of(
                new ToolCall(
                    "c1", "bash", "{\"command\": \"grep -n \\\"def dump\\\" src/schema.py\"}")));
    assertThat(Facts.of(m)).contains("src/schema.py", "def dump", "bash").doesNotContain("command");
  }

  @Test
  void of_uiOnlyMessageHasNoFacts() {
    Message m =
        Message.builder(dev.compactor.core.message.Role.SYSTEM)
            .content("src/a.py")
            .uiOnly(true)
            .build();
    assertThat(Facts.of(m)).isEmpty();
  }
}
