package dev.compactor.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BoundsTest {
  @Test
  void atLeast_returnsTheValue_atOrAboveTheBound() {
    assertThat(Bounds.atLeast(0, 0, "keepHead")).isZero();
    assertThat(Bounds.atLeast(1, 7, "threads")).isEqualTo(7);
    assertThat(Bounds.atLeast(100, 5_000_000_000L, "tokens")).isEqualTo(5_000_000_000L);
  }

  @Test
  void atLeast_belowTheBound_namesValueAndBound() {
    assertThatThrownBy(() -> Bounds.atLeast(0, -1, "keepHead"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keepHead must be >= 0, got -1");
    assertThatThrownBy(() -> Bounds.atLeast(100, 99L, "clipTokens"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("clipTokens must be >= 100, got 99");
  }

  @Test
  void positive_returnsTheValue_andRefusesZeroAndLess() {
    assertThat(Bounds.positive(1, "window")).isEqualTo(1);
    assertThat(Bounds.positive(3L, "window")).isEqualTo(3L);
    assertThatThrownBy(() -> Bounds.positive(0, "trigger value"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trigger value must be > 0, got 0");
    assertThatThrownBy(() -> Bounds.positive(-5L, "maxToolResultTokens"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxToolResultTokens must be > 0, got -5");
  }
}
