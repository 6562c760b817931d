package dev.compactor.core.compaction.trim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExtractiveCompressionTest {

  @Test
  void threeSentencesOrFewer_areLeftAlone() {
    assertThat(ExtractiveCompression.compress("One. Two. Three.", 0.7)).isNull();
  }

  @Test
  void keepsCodeBlocksVerbatim_includingTheirBlankLines() {
    String code = "```java\nint a = 1;\n\n\n// comment. another.\nint b = 2;\n```";
    String text = "Filler sentence here. ".repeat(10) + "\n\n" + code + "\n\nThe end is here.";
    ExtractiveCompression.Compressed c = ExtractiveCompression.compress(text, 0.7);
    assertThat(c).isNotNull();
    assertThat(c.text()).contains(code);
    assertThat(c.total()).isEqualTo(11); // sentences inside code are not counted
    assertThat(c.kept()).isEqualTo(7);
  }

  @Test
  void keepsLineStructure_headingsAndListMarkers_inOriginalOrder() {
    String text =
        String.join(
            "\n",
            "## Plan",
            "We looked at the code. It was long. The weather was nice.",
            "- First item is filler. I decided to use HALF_EVEN rounding.",
            "- Second item is filler. Nothing here matters at all today.",
            "1. Numbered filler text. The fix is in src/Tax.java now.",
            "",
            "Closing words here. Therefore the bug is fixed.");
    ExtractiveCompression.Compressed c = ExtractiveCompression.compress(text, 0.7);
    assertThat(c).isNotNull();
    // 11 sentences, 7 kept; the lowest scores are the fillers at positions 5, 6, 7 and 9
    assertThat(c.text())
        .isEqualTo(
            String.join(
                "\n",
                "## Plan",
                "We looked at the code. It was long. The weather was nice.",
                "- First item is filler. I decided to use HALF_EVEN rounding.",
                "1. The fix is in src/Tax.java now.",
                "",
                "Therefore the bug is fixed."));
  }

  @Test
  void aLineWhoseSentencesAreAllDropped_disappears_withoutLeavingBlankRuns() {
    StringBuilder sb = new StringBuilder("I decided to keep this. Therefore it stays.\n\n");
    for (int i = 0; i < 10; i++) {
      sb.append("Filler number ").append(i).append(" is here.\n\n");
    }
    sb.append("Result: the fix passed.");
    ExtractiveCompression.Compressed c = ExtractiveCompression.compress(sb.toString(), 0.5);
    assertThat(c).isNotNull();
    assertThat(c.text()).doesNotContain("\n\n\n").startsWith("I decided to keep this.");
    assertThat(c.text()).endsWith("Result: the fix passed.");
  }
}
