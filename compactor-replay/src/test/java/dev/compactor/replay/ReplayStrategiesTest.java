package dev.compactor.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.replay.strategy.AutoStrategy;
import dev.compactor.replay.strategy.NoneStrategy;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayStrategiesTest {
  @Test
  void global_discoversTheBuiltIns() {
    assertThat(ReplayStrategies.global().names())
        .contains("none", "mask", "trim", "summarize", "auto");
    assertThat(ReplayStrategies.global().scorecardNames())
        .startsWith("none")
        .containsSubsequence("mask", "trim", "summarize", "auto");
  }

  @Test
  void get_unknownNameListsKnownOnes() {
    assertThatThrownBy(() -> ReplayStrategies.global().get("magic"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("unknown replay strategy \"magic\"")
        .hasMessageContaining("auto, auto-fixed, auto-recall, mask, none");
  }

  @Test
  void get_windowWithoutTheBenchJarSaysHowToRunIt() {
    ReplayStrategies only = ReplayStrategies.of(List.of(new NoneStrategy()));
    assertThatThrownBy(() -> only.get("window"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("compactor-bench")
        .hasMessageContaining("java -cp compactor-bench/target/benchmarks.jar");
  }

  @Test
  void of_duplicateNameNamesBothClasses() {
    assertThatThrownBy(() -> ReplayStrategies.of(List.of(new AutoStrategy(), new AutoStrategy())))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("duplicate replay strategy name \"auto\"")
        .hasMessageContaining(AutoStrategy.class.getName());
  }
}
