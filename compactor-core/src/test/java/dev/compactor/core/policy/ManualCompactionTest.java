package dev.compactor.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualCompactionTest {

  @Test
  void bareCompact_isTrim() {
    ManualCompaction m = ManualCompaction.parse("/compact");
    assertThat(m.strategy()).isEqualTo("trim");
    assertThat(m.instructions()).isEmpty();
    assertThat(m.warning()).isEmpty();
    assertThat(ManualCompaction.parse("  /compact trim ").strategy()).isEqualTo("trim");
  }

  @Test
  void summarize_takesInlineInstructions() {
    ManualCompaction m =
        ManualCompaction.parse("/compact summarize focus on the failing test suite");
    assertThat(m.strategy()).isEqualTo("summarize");
    assertThat(m.instructions()).contains("focus on the failing test suite");
  }

  @Test
  void deprecatedAliases_stillWork_withWarning() {
    ManualCompaction auto = ManualCompaction.parse("/compact auto");
    assertThat(auto.strategy()).isEqualTo("trim");
    assertThat(auto.warning()).get().asString().contains("deprecated").contains("/compact trim");
    ManualCompaction resume = ManualCompaction.parse("/compact resume keep the task id");
    assertThat(resume.strategy()).isEqualTo("summarize");
    assertThat(resume.instructions()).contains("keep the task id");
    assertThat(resume.warning()).get().asString().contains("/compact summarize");
  }

  @Test
  void unknownStrategy_failsNamingIt() {
    assertThatThrownBy(() -> ManualCompaction.parse("/compact shrink"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("\"shrink\"");
    assertThatThrownBy(() -> ManualCompaction.parse("/compact trim please"))
        .hasMessageContaining("takes no instructions");
  }

  @Test
  void isCommand_recognisesOnlyCompact() {
    assertThat(List.of("/compact", "/COMPACT summarize")).allMatch(ManualCompaction::isCommand);
    assertThat(Arrays.asList("/compaction", "compact", null))
        .noneMatch(ManualCompaction::isCommand);
  }
}
