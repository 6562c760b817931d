package dev.compactor.testkit.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

class SharedCorpusTest {
  @Test
  void missingCorpus_skipsOnAUsersClone() {
    assertThatThrownBy(() -> SharedCorpus.assumePresent(false, "X: corpus not found", Map.of()))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("X: corpus not found");
  }

  @Test
  void missingCorpus_failsInCi() {
    assertThatThrownBy(
            () -> SharedCorpus.assumePresent(false, "X: corpus not found", Map.of("CI", "true")))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("X: corpus not found")
        .hasMessageContaining("CI=true");
  }

  @Test
  void presentCorpus_runs_inCiOrNot() {
    SharedCorpus.assumePresent(true, "unused", Map.of("CI", "true"));
    SharedCorpus.assumePresent(true, "unused", Map.of());
  }

  @Test
  void ci_isOnlyTrueWhenTheVariableSaysTrue() {
    assertThat(SharedCorpus.inCi(Map.of("CI", "true"))).isTrue();
    assertThat(SharedCorpus.inCi(Map.of("CI", "TRUE "))).isTrue();
    assertThat(SharedCorpus.inCi(Map.of("CI", "false"))).isFalse();
    assertThat(SharedCorpus.inCi(Map.of())).isFalse();
  }
}
