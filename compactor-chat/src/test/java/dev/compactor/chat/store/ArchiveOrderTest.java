package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.store.ArchiveOrder.Row;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArchiveOrderTest {
  private static List<String> order(
      List<String> history, List<Row> archive, Map<String, String> summaries) {
    return ArchiveOrder.order(history, archive, summaries).stream()
        .map(r -> (r.archived() ? "*" : "") + r.messageId())
        .toList();
  }

  @Test
  void noArchive_isTheHistory() {
    assertThat(order(List.of("a", "b"), List.of(), Map.of())).containsExactly("a", "b");
  }

  @Test
  void summarizedMessages_comeRightBeforeTheirSummary() {
    assertThat(
            order(
                List.of("sys", "S1", "c", "d"),
                List.of(new Row(1, "a", "s1"), new Row(2, "b", "s1")),
                Map.of("s1", "S1")))
        .containsExactly("sys", "*a", "*b", "S1", "c", "d");
  }

  @Test
  void aRolledUpSummary_bringsTheEarlierSummaryAndWhatItReplaced() {
    assertThat(
            order(
                List.of("sys", "S2", "e"),
                List.of(
                    new Row(1, "a", "s1"),
                    new Row(2, "b", "s1"),
                    new Row(3, "S1", "s2"),
                    new Row(4, "c", "s2")),
                Map.of("s1", "S1", "s2", "S2")))
        .containsExactly("sys", "*a", "*b", "*S1", "*c", "S2", "e");
  }

  @Test
  void replacedAndOrphanedRows_comeFirst_inArchiveOrder() {
    assertThat(
            order(
                List.of("n"),
                List.of(
                    new Row(1, "a", "s1"),
                    new Row(2, "S1", null),
                    new Row(3, "x", "gone"),
                    new Row(4, "b", null)),
                Map.of("s1", "S1")))
        .containsExactly("*a", "*S1", "*x", "*b", "n");
  }

  @Test
  void summariesPullingInEachOther_stillPlaceEveryRowOnce() {
    assertThat(
            order(
                List.of("h"),
                List.of(new Row(1, "A", "b"), new Row(2, "B", "a")),
                Map.of("a", "A", "b", "B")))
        .hasSize(3)
        .containsExactlyInAnyOrder("*A", "*B", "h");
  }
}
