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

  /** An OpenAI-chat transcript whose system prompt alone is about {@code words} tokens. */
  private Path bigSystemPrompt(int words) throws Exception {
    StringBuilder sys = new StringBuilder();
    for (int i = 0; i < words; i++) {
      sys.append(" rule").append(i);
    }
    return Files.writeString(
        dir.resolve("chat.json"),
        "[{\"role\":\"system\",\"content\":\""
            + sys
            + "\"},{\"role\":\"user\",\"content\":\"hi\"},"
            + "{\"role\":\"assistant\",\"content\":\"hello\"}]");
  }

  @Test
  void compact_budgetBelowTheProtectedPart_isSaidPlainly_withTheOptionAndTheSize()
      throws Exception {
    Path f = bigSystemPrompt(1500);
    for (String strategy : List.of("trim", "summarize")) {
      CliRunner r =
          CliRunner.run(
              "compact",
              f.toString(),
              "--out",
              dir.resolve("c-" + strategy).toString(),
              "--model",
              "openai/gpt-4o",
              "--summarizer",
              "extractive",
              "--strategy",
              strategy,
              "--context-budget",
              "1000",
              "--json");
      assertThat(r.exitCode()).as(strategy + r.err()).isEqualTo(CompactCommand.EXIT_OVER_BUDGET);
      JsonNode j = JSON.readTree(r.out());
      long protectedTokens = j.get("tokensBefore").asLong() - 20; // all but "hi" and "hello"
      String reason = j.get("reason").asText();
      assertThat(reason)
          .as(strategy)
          .contains("the budget of 1,000 tokens (--context-budget) is below the protected part")
          .contains("what " + strategy + " keeps verbatim")
          .contains("system prompt");
      long said =
          Long.parseLong(
              reason
                  .replaceAll(".* verbatim \\([^)]*\\) is ([\\d,]+) tokens.*", "$1")
                  .replace(",", ""));
      assertThat(said).as(reason).isBetween(protectedTokens, j.get("tokensBefore").asLong());
      assertThat(j.get("hints").toString())
          .contains("--context-budget " + said + " or more: the protected part alone");
    }
  }

  @Test
  void compact_overBudget_givesEachPieceOfAdviceOnce() throws Exception {
    Path f = sample(40);
    CliRunner r =
        CliRunner.run(
            "compact",
            f.toString(),
            "--out",
            dir.resolve("c").toString(),
            "--strategy",
            "trim",
            "--context-budget",
            "0.05");
    assertThat(r.exitCode()).as(r.err() + r.out()).isEqualTo(CompactCommand.EXIT_OVER_BUDGET);
    String out = r.out();
    assertThat(out).contains("over budget: trim").contains("to get further: --strategy summarize");
    // The reason says why; the remedies are only in the hints, each once.
    assertThat(out).doesNotContain("try the summarize strategy").doesNotContain("use a context");
    assertThat(out.split("summarize", -1)).hasSize(2);
    assertThat(out.split("--context-budget \\d+", -1)).hasSize(2);
  }
}
