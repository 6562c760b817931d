package dev.compactor.core.compaction.mask;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The placeholder's index of further identifiers ({@code index} option). */
class MaskIndexTest {
  private static final String READ =
      "def load_table(path):\n    return TableCache(path)\n\n"
          + "def parse_row(row, sep=\",\"):\n    return row.split(sep)\n\n"
          + "ENCODING = \"latin-1\"\nMAX_ROWS = 65536\n"
          + "class RowParser:\n    def feed(self, chunk_size):\n        pass\n"
          + "# see src/table/cache.py and docs/tables.md\n".repeat(8);

  private static List<Message> session(String other) {
    Conv s = new Conv().user("read the table code " + other);
    for (int i = 0; i < 3; i++) {
      s.tool("shell", "{}", READ);
    }
    return s.build();
  }

  private static CompressionConfig config(Map<String, Object> extra) {
    return CompressionConfig.builder().limit(1).extraConfig(extra).build();
  }

  @Test
  void withoutTheOption_thePlaceholderHasNoIndex() {
    Message masked =
        new MaskProvider()
            .compress(session(""), config(Map.of("keep_last", 1, "batch", 1, "min_tokens", 0)))
            .messages()
            .get(2);
    assertThat(masked.content())
        .startsWith(MaskProvider.PLACEHOLDER_PREFIX)
        .doesNotContain("also:");
  }

  @Test
  void theIndex_listsWhatTheRestOfTheViewLacks_onceAcrossPlaceholders_boundedPerOutput() {
    Map<String, Object> extra =
        Map.of("keep_last", 0, "batch", 1, "min_tokens", 0, "names", 0, "mentions", 0, "index", 5);
    List<Message> out = new MaskProvider().compress(session("`latin-1`"), config(extra)).messages();
    String first = out.get(2).content();
    assertThat(first).contains("; also: `");
    // at most 5 further identifiers (and one per 25 tokens of output)
    String also = first.substring(first.indexOf("also: "), first.indexOf(']'));
    assertThat(also.split("`, `")).hasSizeLessThanOrEqualTo(5);
    // a name the user's message has is not repeated
    assertThat(also).doesNotContain("latin-1");
    // the second and third reads list nothing the first placeholder already lists
    for (String id : also.substring(7, also.length() - 1).split("`, `")) {
      assertThat(out.get(4).content()).doesNotContain("`" + id + "`");
    }
  }

  @Test
  void theIndex_ofOneOutput_keepsItsIdentifiersInOrderOfAppearance() {
    Message m = Message.builder(Role.TOOL).id("t").toolCallId("c").content(READ).build();
    List<String> index = MaskProvider.index(m, new java.util.HashSet<>(), 100);
    assertThat(index).contains("load_table", "TableCache", "src/table/cache.py", "65536");
    assertThat(index.indexOf("load_table")).isLessThan(index.indexOf("RowParser"));
    assertThat(MaskProvider.index(m, new java.util.HashSet<>(List.of("load_table")), 100))
        .doesNotContain("load_table");
    assertThat(MaskProvider.index(m, new java.util.HashSet<>(), 2)).hasSize(2);
  }
}
