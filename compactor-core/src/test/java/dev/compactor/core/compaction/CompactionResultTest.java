package dev.compactor.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactionResultTest {
  private static final List<Message> SOURCE =
      List.of(Message.user("find the bug"), Message.assistant("found it ✓"));

  @Test
  void of_digestIsComputedOnFirstUse_andIsTheDigestOfTheSourceAtThatTime() {
    List<Message> source = new ArrayList<>(SOURCE);
    CompactionResult r = CompactionResult.of(source, source.subList(1, 2), List.of(), Map.of());
    source.clear(); // the result keeps its own copy of the source list
    assertThat(r.sourceDigest()).isEqualTo(Digests.roleAndContent(SOURCE)).hasSize(64);
    assertThat(r.coveredThrough()).isEqualTo(1);
  }

  @Test
  void equalComponents_equalResults_whetherTheDigestWasGivenOrComputed() {
    CompactionResult lazy = CompactionResult.unchanged(SOURCE);
    CompactionResult given =
        new CompactionResult(SOURCE, Digests.roleAndContent(SOURCE), 1, List.of(), Map.of());
    assertThat(lazy).isEqualTo(given).hasSameHashCodeAs(given);
    assertThat(lazy.toString()).isEqualTo(given.toString());
    assertThat(new CompactionResult(SOURCE, "0".repeat(64), 1, List.of(), Map.of()))
        .isNotEqualTo(lazy);
  }

  @Test
  void invalidComponents_areRejected() {
    assertThatThrownBy(() -> new CompactionResult(SOURCE, null, 1, List.of(), Map.of()))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("sourceDigest");
    assertThatThrownBy(() -> new CompactionResult(SOURCE, "d", -2, List.of(), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-2");
  }
}
