package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactionJournalTest {
  @TempDir Path dir;

  private static CompactionRecord record(String view, Map<String, Object> extra) {
    return new CompactionRecord(
        Instant.parse("2025-03-04T05:06:07Z"),
        "auto",
        "trim",
        120_000,
        70_000,
        80,
        52,
        view,
        extra);
  }

  @Test
  void append_entriesAreReadBackInOrderAfterReopen_withFreeFormFields() {
    CompactionRecord first = record("compacted-001", Map.of("reason", "budget", "phase", 2));
    CompactionRecord second = record(null, Map.of("rejected", true, "savings", 0.04));
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.journal().append(first);
      c.journal().append(second);
      assertThat(c.journal().entries()).containsExactly(first, second);
    }
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.journal().entries()).containsExactly(first, second);
    }
  }

  @Test
  void append_writesSnakeCaseLine() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.journal().append(record("compacted-001", Map.of("reason", "budget")));
    }
    assertThat(Files.readAllLines(dir.resolve("compaction.jsonl")))
        .containsExactly(
            "{\"timestamp\":\"2025-03-04T05:06:07Z\",\"trigger\":\"auto\",\"strategy\":\"trim\","
                + "\"tokens_before\":120000,\"tokens_after\":70000,\"messages_before\":80,"
                + "\"messages_after\":52,\"view\":\"compacted-001\",\"reason\":\"budget\"}");
  }

  @Test
  void open_tornLastJournalLine_isTruncatedAndEarlierEntriesKept() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.journal().append(record("compacted-001", Map.of()));
    }
    Files.writeString(
        dir.resolve("compaction.jsonl"), "{\"timestamp\":\"20", StandardOpenOption.APPEND);
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.journal().entries()).hasSize(1);
      c.journal().append(record("compacted-002", Map.of()));
    }
    assertThat(Files.readAllLines(dir.resolve("compaction.jsonl"))).hasSize(2);
  }

  @Test
  void open_journalEntryWithBadField_failsNamingFileLineAndField() throws IOException {
    Files.writeString(
        dir.resolve("compaction.jsonl"),
        "{\"timestamp\":\"2025-03-04T05:06:07Z\",\"trigger\":\"auto\",\"strategy\":\"trim\","
            + "\"tokens_before\":-5,\"tokens_after\":1,\"messages_before\":1,\"messages_after\":1}\n");
    assertThatThrownBy(() -> StoredConversation.open(dir))
        .isInstanceOf(LogFormatException.class)
        .hasMessageContaining("compaction.jsonl:1 (byte offset 0)")
        .hasMessageContaining("tokens_before")
        .hasMessageContaining("-5");
  }

  @Test
  void record_extraKeyNamingAField_isRejected() {
    assertThatThrownBy(() -> record("v", Map.of("tokens_after", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tokens_after");
    assertThatThrownBy(
            () -> new CompactionRecord(Instant.EPOCH, " ", "trim", 0, 0, 0, 0, null, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trigger");
  }

  @Test
  void entries_isASnapshot() {
    try (StoredConversation c = StoredConversation.open(dir)) {
      List<CompactionRecord> before = c.journal().entries();
      c.journal().append(record("v", Map.of()));
      assertThat(before).isEmpty();
      assertThat(c.journal().entries()).hasSize(1);
    }
  }
}
