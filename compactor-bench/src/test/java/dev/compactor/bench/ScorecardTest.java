package dev.compactor.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.testkit.corpus.SharedCorpus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Runs the scorecard on two small files of the shared corpus (not part of the project); skipped
 * with a message when it is absent. The full scorecard is a documented command, not a test.
 */
class ScorecardTest {
  @TempDir Path dir;

  @Test
  void scorecard_smallCorpus_writesMarkdownAndJsonWithEveryStrategy() throws Exception {
    Path corpus = Path.of("..", "..", "shared", "corpus");
    Path[] files = {
      corpus.resolve("swe-agent/function_calling_simple.traj.gz"),
      corpus.resolve("claude-code/tool_heavy.jsonl.gz")
    };
    boolean present = Files.isRegularFile(files[0]) && Files.isRegularFile(files[1]);
    SharedCorpus.assumePresent(
        present, "ScorecardTest: no shared corpus at " + corpus.toAbsolutePath());
    Path small = dir.resolve("corpus");
    for (Path f : files) {
      Path to = small.resolve(f.getParent().getFileName()).resolve(f.getFileName());
      Files.createDirectories(to.getParent());
      Files.copy(f, to);
    }
    Path out = dir.resolve("docs/scorecard.md");
    int code =
        new CommandLine(new Scorecard())
            .execute(
                small.toString(),
                "--window",
                "8000",
                "--max-output",
                "1000",
                "--out",
                out.toString());
    assertThat(code).isZero();
    String md = Files.readString(out);
    assertThat(md)
        .contains("# Replay scorecard")
        .contains("## swe-agent")
        .contains("## claude-code")
        .contains("| window |")
        .contains("| auto |");
    JsonNode json = new ObjectMapper().readTree(dir.resolve("docs/scorecard.json").toFile());
    assertThat(json.path("groups").path("all").path("none").path("recall").asDouble())
        .isEqualTo(1.0);
    assertThat(json.path("files")).hasSize(2);
  }
}
