package dev.compactor.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.testkit.corpus.SharedCorpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Replays three small files of the shared corpus ({@code ../shared/corpus}, not part of the
 * project) under every built-in strategy; skipped with a message when the corpus is absent. The
 * full scorecard is {@code dev.compactor.bench.Scorecard}, not a test.
 */
class CorpusReplayTest {
  private static final List<String> FILES =
      List.of(
          "swe-agent/function_calling_simple.traj.gz",
          "claude-code/tool_heavy.jsonl.gz",
          "mini-swe-agent/deepseek_chat_dev__marshmallow-code__marshmallow-1343.traj.json.gz");

  @Test
  void smallCorpusFiles_everyStrategyKeepsViewsValid_noneRecallsEverything() {
    Path corpus = Path.of("..", "..", "shared", "corpus");
    if (!Files.isDirectory(corpus)) {
      corpus = Path.of("..", "shared", "corpus");
    }
    Path root = corpus;
    List<Path> files = FILES.stream().map(root::resolve).filter(Files::isRegularFile).toList();
    SharedCorpus.assumePresent(
        files.size() == FILES.size(),
        "CorpusReplayTest: shared corpus not found at " + root.toAbsolutePath());
    ReplayStrategies s = ReplayStrategies.global();
    List<ReplayStrategy> strategies =
        List.of(s.get("none"), s.get("mask"), s.get("trim"), s.get("summarize"), s.get("auto"));
    ReplayReport r =
        new ReplayRunner(ReplayOptions.scorecard().withThreads(2))
            .run(files, strategies, ProgressListener.NONE);
    assertThat(r.files()).hasSize(3);
    for (Metrics m : r.totals().values()) {
      assertThat(m.invalidViews()).isZero();
      assertThat(m.calls()).isEqualTo(r.totals().get("none").calls());
    }
    assertThat(r.totals().get("none").recall()).isEqualTo(1.0);
    assertThat(r.totals().get("auto").overWindowCalls()).isZero();
    assertThat(r.totals().get("summarize").overWindowCalls()).isZero();
  }
}
