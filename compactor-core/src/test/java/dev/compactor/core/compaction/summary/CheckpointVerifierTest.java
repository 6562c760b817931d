package dev.compactor.core.compaction.summary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.message.Message;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointVerifierTest {

  private static Checkpoint checkpoint(String task) {
    return new Checkpoint(task, List.of(), "Working on it.", List.of(), List.of(), List.of());
  }

  @Test
  void aDiffsPrefixedPaths_areThePathTheCheckpointAlreadyNames() {
    String diff =
        "diff --git a/src/calc/round.py b/src/calc/round.py\n"
            + "--- a/src/calc/round.py\n+++ b/src/calc/round.py\n@@ -1 +1 @@\n-x\n+y\n";
    List<Message> covered =
        new Conv().user("Fix the rounding in src/calc/round.py.").tool("shell", "{}", diff).build();
    List<Message> kept = new Conv().tool("shell", "{}", diff).build();

    CheckpointVerifier.Verified v =
        CheckpointVerifier.verify(checkpoint("Fix src/calc/round.py."), covered, kept);

    assertThat(v.added()).isEmpty();
    assertThat(v.checkpoint().identifiers()).isEmpty();
  }

  @Test
  void aDiffPathTheCheckpointLacks_isAddedOnce_withoutItsPrefix() {
    String diff =
        "diff --git a/src/calc/round.py b/src/calc/round.py\n"
            + "--- a/src/calc/round.py\n+++ b/src/calc/round.py\n@@ -1 +1 @@\n-x\n+y\n";
    List<Message> covered = new Conv().tool("shell", "{}", diff).build();
    List<Message> kept = new Conv().user("Now test src/calc/round.py again.").build();

    CheckpointVerifier.Verified v =
        CheckpointVerifier.verify(checkpoint("Fix the rounding."), covered, kept);

    assertThat(v.added()).containsExactly("src/calc/round.py");
  }

  @Test
  void comparable_stripsOnlyADiffPrefix() {
    assertThat(CheckpointVerifier.comparable("a/src/x.py")).isEqualTo("src/x.py");
    assertThat(CheckpointVerifier.comparable("b/x.py")).isEqualTo("x.py");
    assertThat(CheckpointVerifier.comparable("ab/x.py")).isEqualTo("ab/x.py");
    assertThat(CheckpointVerifier.comparable("/a/x.py")).isEqualTo("/a/x.py");
    assertThat(CheckpointVerifier.comparable("a//x")).isEqualTo("a//x");
    assertThat(CheckpointVerifier.comparable("src/x.py")).isEqualTo("src/x.py");
  }
}
