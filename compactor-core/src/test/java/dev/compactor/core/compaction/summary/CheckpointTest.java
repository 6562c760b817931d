package dev.compactor.core.compaction.summary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.summary.Checkpoint.FileToReload;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointTest {

  private static Checkpoint full() {
    return new Checkpoint(
        "Fix the one-cent drift in invoice totals.\n\nLatest request: add a test.",
        List.of("Use BigDecimal with HALF_EVEN per line.", "User: never touch the exporter."),
        "Tests pass except InvoiceServiceTest.\n\n### Notes\n- the CI is slow",
        List.of("Update docs/rounding.md", "Unanswered request (m00042): run the suite"),
        List.of(
            new FileToReload("src/main/java/Invoice.java", "edited 3×, read 2×; last in m00040"),
            new FileToReload("docs/rounding.md", "")),
        List.of("NullPointerException", "#4521"));
  }

  @Test
  void render_writesTheSectionsInOrder_withFilesAsPathAndReason() {
    String md = full().render();
    assertThat(md)
        .startsWith("## Objective\nFix the one-cent drift")
        .contains("\n\n## Key Decisions\n- Use BigDecimal with HALF_EVEN per line.\n")
        .contains("\n## Current State\nTests pass except InvoiceServiceTest.")
        .contains("\n## Open Items\n- Update docs/rounding.md\n")
        .contains(
            "\n## Context Files\n- `src/main/java/Invoice.java` — edited 3×, read 2×; last in"
                + " m00040\n- `docs/rounding.md`\n")
        .endsWith("\n## Identifiers\n- `NullPointerException`, `#4521`");
    assertThat(md.indexOf("## Objective"))
        .isLessThan(md.indexOf("## Key Decisions"))
        .isLessThan(md.indexOf("## Current State"));
    assertThat(md.indexOf("## Current State"))
        .isLessThan(md.indexOf("## Open Items"))
        .isLessThan(md.indexOf("## Context Files"));
  }

  @Test
  void render_emptySectionsSayNone_andTheIdentifiersSectionIsLeftOut() {
    String md = Checkpoint.empty().render();
    assertThat(md).contains("## Key Decisions\n(none)").doesNotContain("## Identifiers");
    assertThat(Checkpoint.empty().isEmpty()).isTrue();
  }

  @Test
  void parse_readsBackWhatRenderWrote() {
    assertThat(Checkpoint.parse(full().render())).isEqualTo(full());
    assertThat(Checkpoint.parse(Checkpoint.empty().render())).isEqualTo(Checkpoint.empty());
  }

  @Test
  void manyIdentifiers_areRenderedSeveralPerLine_andReadBackOneByOne() {
    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ids.add("name_" + i);
    }
    ids.add("a, b");
    Checkpoint c = Checkpoint.empty().withIdentifiers(ids);
    String md = c.render();
    assertThat(md).contains("\n- `name_0`, `name_1`, ").contains("`name_15`\n- `name_16`");
    assertThat(Checkpoint.parse(md)).isEqualTo(c);
  }

  @Test
  void parse_ignoresTextBeforeTheFirstHeading() {
    String md = "[Checkpoint: 12 earlier messages ...]\n\n" + full().render();
    assertThat(Checkpoint.parse(md)).isEqualTo(full());
  }

  @Test
  void parse_skipsTheCutMarker_soACutCheckpointCarriesNoMarkerForward() {
    String md =
        "## Objective\nGoal.\n\n## Key Decisions\n- A.\n"
            + Checkpoint.CUT_MARKER
            + "\n- `x` — y\n\n## Identifiers\n- `z`";
    Checkpoint c = Checkpoint.parse(md);
    assertThat(c.decisions()).containsExactly("A.", "`x` — y");
    assertThat(c.render()).doesNotContain(Checkpoint.CUT_MARKER);
  }

  @Test
  void parse_acceptsTheVariantsAModelWrites() {
    String md =
        String.join(
            "\n",
            "Here is the checkpoint:",
            "# Goal",
            "Ship the fix.",
            "## Decisions and constraints:",
            "* Keep the API stable.",
            "1. Round per line,",
            "   not on the total.",
            "## Progress",
            "Half done.",
            "## Risks",
            "The exporter may break.",
            "## Next Steps",
            "- Write the migration",
            "## Files to reload",
            "- src/App.java - the entry point",
            "- `build.gradle`: dependencies",
            "- notes.txt");
    Checkpoint c = Checkpoint.parse(md);
    assertThat(c.objective()).isEqualTo("Ship the fix.");
    assertThat(c.decisions())
        .containsExactly("Keep the API stable.", "Round per line, not on the total.");
    assertThat(c.currentState()).isEqualTo("Half done.\n\n### Risks\nThe exporter may break.");
    assertThat(c.openItems()).containsExactly("Write the migration");
    assertThat(c.filesToReload())
        .containsExactly(
            new FileToReload("src/App.java", "the entry point"),
            new FileToReload("build.gradle", "dependencies"),
            new FileToReload("notes.txt", ""));
    assertThat(Checkpoint.parse(c.render())).isEqualTo(c);
  }

  @Test
  void parse_textWithoutHeadings_becomesTheCurrentState() {
    Checkpoint c = Checkpoint.parse("We fixed the bug.");
    assertThat(c.currentState()).isEqualTo("We fixed the bug.");
    assertThat(c.objective()).isEmpty();
  }

  @Test
  void construction_normalizes_itemsToOneLine_headingsInTextDemoted_noneDropped() {
    Checkpoint c =
        new Checkpoint(
            "## Sneaky\nbody",
            List.of("two\nlines", " ", "(none)"),
            null,
            null,
            null,
            List.of("`x`", "x"));
    assertThat(c.objective()).isEqualTo("### Sneaky\nbody");
    assertThat(c.decisions()).containsExactly("two lines");
    assertThat(c.currentState()).isEmpty();
    assertThat(c.identifiers()).containsExactly("x");
    assertThat(Checkpoint.parse(c.render())).isEqualTo(c);
  }

  @Test
  void construction_joinsEveryKindOfLineBreak_andKeepsEachIdentifierOnceInFirstOrder() {
    Checkpoint c =
        new Checkpoint(
            "",
            List.of("a\u2028b", "c \u000B d", "e\u0085f", "g\r\n  h", "i\fj", "plain k"),
            "",
            List.of(),
            List.of(),
            List.of("b_name", "a_name", "`b_name`", "c_name", " a_name ", "b_name"));
    assertThat(c.decisions()).containsExactly("a b", "c d", "e f", "g h", "i j", "plain k");
    assertThat(c.identifiers()).containsExactly("b_name", "a_name", "c_name");
  }
}
