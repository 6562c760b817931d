package dev.compactor.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConversationSettingsTest {
  @TempDir Path dir;

  @Test
  void put_persistsAndReopenReadsItBack() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.settings().get("context_budget")).isEmpty();
      c.settings().put("context_budget", "0.8");
      c.settings().put("model", "gpt-4o");
      c.settings().put("context_budget", "120000");
    }
    assertThat(Files.readString(dir.resolve("settings.json")))
        .isEqualTo("{\"context_budget\":\"120000\",\"model\":\"gpt-4o\"}\n");
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.settings().get("context_budget")).contains("120000");
      assertThat(c.settings().asMap())
          .containsExactly(Map.entry("context_budget", "120000"), Map.entry("model", "gpt-4o"));
    }
  }

  @Test
  void put_leavesNoTempFileBehind() throws IOException {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.settings().put("a", "1");
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void remove_dropsTheSettingDurably() {
    try (StoredConversation c = StoredConversation.open(dir)) {
      c.settings().put("a", "1");
      c.settings().put("b", "2");
      c.settings().remove("a");
      c.settings().remove("never-set");
    }
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.settings().asMap()).containsOnlyKeys("b");
    }
  }

  @Test
  void put_blankKey_isRejected() {
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThatThrownBy(() -> c.settings().put(" ", "x"))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> c.settings().put("k", null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("k");
    }
  }

  @Test
  void open_handEditedScalarValues_areReadAsText() throws IOException {
    Files.writeString(dir.resolve("settings.json"), "{\n  \"budget\": 0.8,\n  \"on\": true\n}\n");
    try (StoredConversation c = StoredConversation.open(dir)) {
      assertThat(c.settings().asMap()).containsEntry("budget", "0.8").containsEntry("on", "true");
    }
  }

  @Test
  void open_malformedSettings_failsNamingTheFile() throws IOException {
    Files.writeString(dir.resolve("settings.json"), "{\"budget\": [1]}");
    assertThatThrownBy(() -> StoredConversation.open(dir))
        .isInstanceOf(LogFormatException.class)
        .hasMessageContaining("settings.json")
        .hasMessageContaining("budget");
    Files.writeString(dir.resolve("settings.json"), "{\"budget\": ");
    assertThatThrownBy(() -> StoredConversation.open(dir))
        .isInstanceOf(LogFormatException.class)
        .hasMessageContaining("settings.json");
  }
}
