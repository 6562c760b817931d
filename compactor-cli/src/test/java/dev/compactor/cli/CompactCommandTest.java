package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.message.Message;
import dev.compactor.log.store.StoredConversation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CompactCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private Path sample(int turns) {
    return CliRunner.sample(dir.resolve("session.jsonl"), turns, 5);
  }

  @Test
  void compact_importsFile_makesNewView_journals_andKeepsMasterComplete() throws Exception {
    Path f = sample(80);
    Path conv = dir.resolve("conv");
    CliRunner r = CliRunner.compact(f, conv, "mask", "--context-budget", "0.2", "--json");
    assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
    JsonNode j = JSON.readTree(r.out());
    for (String field :
        List.of(
            "strategy",
            "tokensBefore",
            "tokensAfter",
            "messagesBefore",
            "messagesAfter",
            "durationMs",
            "invalid",
            "limitations",
            "view")) {
      assertThat(j.has(field)).as(field).isTrue();
    }
    assertThat(j.get("view").asText()).isEqualTo("compacted-001");
    assertThat(j.get("tokensAfter").asLong()).isLessThan(j.get("tokensBefore").asLong());
    assertThat(j.get("invalid")).isEmpty();

    List<String> original = Files.readAllLines(f);
    try (StoredConversation c = StoredConversation.open(conv)) {
      // The master log holds every imported message (plus the UI-only status line).
      assertThat(c.master().size()).isEqualTo(original.size() + 1);
      assertThat(c.journal().entries()).hasSize(1);
      assertThat(c.journal().entries().get(0).strategy()).isEqualTo("mask");
      // Everything masked can be recovered exactly.
      for (Message m : c.activeMessages()) {
        if (m.id().value().endsWith("~masked")) {
          List<Message> back = c.recover(m.id());
          assertThat(back).hasSize(1);
          assertThat(back.get(0).content()).isNotEqualTo(m.content());
        }
      }
    }
  }

  @Test
  void compact_sameFileTwice_reusesTheDirectory_andCompactsTheActiveView() throws Exception {
    Path f = sample(60);
    Path conv = dir.resolve("conv");
    CliRunner.compact(f, conv, "mask", "--context-budget", "0.5");
    CliRunner second = CliRunner.run("compact", conv.toString(), "--strategy", "mask", "--json");
    assertThat(second.exitCode()).as(second.err()).isZero();
    // The budget given the first time was persisted for the conversation.
    assertThat(JSON.readTree(second.out()).get("budget").get("source").asText())
        .contains("persisted");
  }

  @Test
  void compact_unknownStrategy_listsKnownOnes() {
    Path f = sample(5);
    CliRunner r =
        CliRunner.run(
            "compact", f.toString(), "--out", dir.resolve("c").toString(), "--strategy", "shrink");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("shrink").contains("mask");
  }

  @Test
  void compact_multiConversationFile_needsAName() throws Exception {
    Path f = dir.resolve("tau.json");
    Files.writeString(
        f,
        """
        [{"task_id":1,"reward":1,"info":{},"trial":0,"traj":[{"role":"user","content":"a"}]},
         {"task_id":2,"reward":0,"info":{},"trial":0,"traj":[{"role":"user","content":"b"}]}]
        """);
    CliRunner r = CliRunner.run("compact", f.toString(), "--out", dir.resolve("c").toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--conversation").contains("task-1/trial-0");
  }
}
