package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.log.store.StoredConversation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Imports are atomic, recorded with their source's size and digest, and never reused stale. */
class CompactImportTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  private Path sample(String name, int turns) {
    return CliRunner.sample(dir.resolve(name), turns, 7);
  }

  private static List<String> leftovers(Path parent) throws Exception {
    try (Stream<Path> s = Files.list(parent)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> n.contains(".importing-") || n.contains(".replaced-"))
          .toList();
    }
  }

  @Test
  void importRecordsTheSourceSizeAndDigest_andAnUnchangedFileReusesTheDirectory() throws Exception {
    Path f = sample("s.jsonl", 30);
    Path conv = dir.resolve("conv");
    CliRunner first = CliRunner.compact(f, conv, "mask", "--json");
    assertThat(first.exitCode()).as(first.err()).isZero();
    try (StoredConversation c = StoredConversation.open(conv)) {
      assertThat(c.settings().get("source_size")).contains(Long.toString(Files.size(f)));
      assertThat(c.settings().get("source_sha256")).get().asString().hasSize(64);
    }
    CliRunner again = CliRunner.compact(f, conv, "mask", "--json");
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.err()).contains("imported from the unchanged");
    assertThat(leftovers(dir)).isEmpty();
  }

  @Test
  void aChangedSource_isRefusedWithTheSizes_orReimportedOnRequest() throws Exception {
    Path f = sample("s.jsonl", 30);
    Path conv = dir.resolve("conv");
    assertThat(CliRunner.run("compact", f.toString(), "--out", conv.toString()).exitCode())
        .isIn(0, CompactCommand.EXIT_OVER_BUDGET);
    long before = Files.size(f);
    List<String> lines = Files.readAllLines(f);
    Files.writeString(
        f,
        "{\"id\":\"m99999\",\"role\":\"user\",\"content\":\"one more\",\"timestamp\":\"2030-01-01T00:00:00Z\"}\n",
        StandardOpenOption.APPEND);

    CliRunner refused = CliRunner.run("compact", f.toString(), "--out", conv.toString());
    assertThat(refused.exitCode()).isEqualTo(CompactCommand.EXIT_ERROR);
    assertThat(refused.err())
        .contains("changed since it was imported")
        .contains(before + " bytes")
        .contains(Files.size(f) + " bytes")
        .contains("--reimport");

    CliRunner re =
        CliRunner.run("compact", f.toString(), "--out", conv.toString(), "--reimport", "--json");
    assertThat(re.exitCode()).as(re.err()).isIn(0, CompactCommand.EXIT_OVER_BUDGET);
    try (StoredConversation c = StoredConversation.open(conv)) {
      assertThat(c.master().messages().stream().filter(m -> !m.uiOnly()).count())
          .isEqualTo(lines.size() + 1);
      assertThat(c.settings().get("source_size")).contains(Long.toString(Files.size(f)));
    }
    assertThat(leftovers(dir)).isEmpty();
  }

  @Test
  void outIntoAnUnrelatedNonEmptyDirectory_isRefused_andLeftAsItWas() throws Exception {
    Path f = sample("s.jsonl", 5);
    Path other = Files.createDirectories(dir.resolve("photos"));
    Files.writeString(other.resolve("cat.jpg"), "meow");
    CliRunner r = CliRunner.run("compact", f.toString(), "--out", other.toString());
    assertThat(r.exitCode()).isEqualTo(CompactCommand.EXIT_ERROR);
    assertThat(r.err()).contains("non-empty directory").contains("--out");
    try (Stream<Path> s = Files.list(other)) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("cat.jpg");
    }
  }

  @Test
  void anEmptyOutDirectory_isUsed() throws Exception {
    Path f = sample("s.jsonl", 5);
    Path empty = Files.createDirectories(dir.resolve("empty"));
    CliRunner r = CliRunner.run("compact", f.toString(), "--out", empty.toString());
    assertThat(r.exitCode()).as(r.err()).isIn(0, CompactCommand.EXIT_OVER_BUDGET);
    assertThat(empty.resolve("conversation.jsonl")).isRegularFile();
  }

  @Test
  void aCommandThatFailsAfterReading_leavesNoDirectoryBehind() throws Exception {
    Path f = sample("s.jsonl", 5);
    Path conv = dir.resolve("conv");
    CliRunner unknown =
        CliRunner.run("compact", f.toString(), "--out", conv.toString(), "--strategy", "shrink");
    assertThat(unknown.exitCode()).isEqualTo(CompactCommand.EXIT_ERROR);
    CliRunner badBudget =
        CliRunner.run("compact", f.toString(), "--out", conv.toString(), "--context-budget", "abc");
    assertThat(badBudget.exitCode()).isEqualTo(CompactCommand.EXIT_ERROR);
    CliRunner badSummarizer = CliRunner.compact(f, conv, "summarize", "--summarizer", "gpt");
    assertThat(badSummarizer.exitCode()).isEqualTo(CompactCommand.EXIT_ERROR);
    assertThat(conv).doesNotExist();
    assertThat(leftovers(dir)).isEmpty();
  }

  @Test
  void anImportKilledBeforeItIsRenamedIntoPlace_leavesNoConversation_andTheNextRunImportsAll()
      throws Exception {
    Path f = sample("big.jsonl", 600);
    int lines = Files.readAllLines(f).size();
    Path conv = dir.resolve("conv");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of("compact", f.toString(), "--out", conv.toString(), "--strategy", "mask"));
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("child.log").toFile())
            .start();
    // Wait until the child has written its temporary master log (in one go), then kill it without
    // warning while it compacts, before it renames the directory into place.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    Path partial = null;
    while (partial == null && p.isAlive() && System.nanoTime() < deadline) {
      try (Stream<Path> s = Files.list(dir)) {
        partial =
            s.filter(x -> x.getFileName().toString().startsWith(".conv.importing-"))
                .map(x -> x.resolve("conversation.jsonl"))
                .filter(x -> Files.isRegularFile(x) && sizeOf(x) > 0)
                .findFirst()
                .orElse(null);
      }
      Thread.sleep(5);
    }
    boolean aliveWhenKilled = p.isAlive();
    p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    assertThat(partial)
        .as(
            "the child wrote its import's log before it was killed: %s",
            Files.readString(dir.resolve("child.log")))
        .isNotNull();
    assertThat(aliveWhenKilled)
        .as(
            "the child was killed before it finished: %s",
            Files.readString(dir.resolve("child.log")))
        .isTrue();
    assertThat(conv).as("no conversation directory from a killed import").doesNotExist();

    CliRunner again = CliRunner.compact(f, conv, "mask", "--json");
    assertThat(again.exitCode()).as(again.err()).isIn(0, CompactCommand.EXIT_OVER_BUDGET);
    JsonNode j = JSON.readTree(again.out());
    assertThat(again.err()).contains("importing " + String.format("%,d", lines) + " messages");
    try (StoredConversation c = StoredConversation.open(conv)) {
      assertThat(c.master().messages().stream().filter(m -> !m.uiOnly()).count()).isEqualTo(lines);
    }
    assertThat(j.get("messagesBefore").asInt()).isEqualTo(lines);
    assertThat(leftovers(dir)).as("the killed import's directory is removed").isEmpty();
  }

  private static long sizeOf(Path p) {
    try {
      return Files.size(p);
    } catch (java.io.IOException e) {
      return 0;
    }
  }
}
