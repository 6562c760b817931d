package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolOutputsTest {
  @TempDir Path dir;
  private final Clock clock =
      Clock.fixed(Instant.parse("2025-06-07T08:09:10.123Z"), ZoneOffset.UTC);

  @Test
  void saveToolOutput_namesFileByTimestampAndCrc32c_andStoresContentExactly() throws IOException {
    String content = "total 0\n日本語 output\n";
    try (StoredConversation c = StoredConversation.open(dir, clock)) {
      Path p = c.saveToolOutput(content);
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      String crc8 = String.format("%08x", crc.getValue());
      assertThat(p)
          .isEqualTo(
              dir.resolve("tool-outputs/20250607T080910.123Z-" + crc8 + ".txt").toAbsolutePath());
      assertThat(Files.readString(p)).isEqualTo(content);
    }
  }

  @Test
  void saveToolOutput_sameContentSameInstant_returnsSameFile_otherContentAnotherFile() {
    try (StoredConversation c = StoredConversation.open(dir, clock)) {
      Path a = c.saveToolOutput("one");
      assertThat(c.saveToolOutput("one")).isEqualTo(a);
      assertThat(c.saveToolOutput("two")).isNotEqualTo(a);
    }
  }

  @Test
  void saveToolOutput_withCategory_usesSubdirectory_andRejectsPathTricks() {
    try (StoredConversation c = StoredConversation.open(dir, clock)) {
      Path p = c.saveToolOutput("x", "autocompact");
      assertThat(p.getParent()).isEqualTo(dir.resolve("tool-outputs/autocompact").toAbsolutePath());
      assertThatThrownBy(() -> c.saveToolOutput("x", ".."))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("\"..\"");
      assertThatThrownBy(() -> c.saveToolOutput("x", "a/b"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("a/b");
    }
  }
}
