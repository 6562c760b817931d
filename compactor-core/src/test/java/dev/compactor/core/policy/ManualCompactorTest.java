package dev.compactor.core.policy;

import static dev.compactor.core.policy.PolicyFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ManualCompactorTest {
  private final MutableClock clock = new MutableClock();
  private final StubOutputs trim = new StubOutputs();
  private final Checkpoint summarize = new Checkpoint();
  private final List<AppliedCompaction> journal = new ArrayList<>();
  private final Map<String, ContextProvider> byName = Map.of("trim", trim, "summarize", summarize);
  private final ManualCompactor manual =
      new ManualCompactor(
          n -> {
            ContextProvider p = byName.get(n);
            if (p == null) {
              throw new CompactorException("unknown strategy " + n);
            }
            return p;
          },
          clock,
          journal::add);
  private final InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog());

  private PolicyContext ctx(long budget) {
    return PolicyContext.of(
            "test/model", budget, CompressionConfig.builder().counter(CHARS).build())
        .withInstructions("Always note the task id.");
  }

  @Test
  void compactTrim_makesNewView_evenUnderBudget() {
    conv.append(user("u1", 10));
    conv.append(call("a1", "c1"));
    conv.append(result("t1", "c1", 800));
    CompactionOutcome o = manual.compact(conv, ManualCompaction.parse("/compact"), ctx(100_000));
    assertThat(o).isInstanceOf(CompactionOutcome.Compacted.class);
    assertThat(((CompactionOutcome.Compacted) o).report().trigger()).isEqualTo(Trigger.MANUAL);
    assertThat(conv.activeView().id()).isEqualTo("compacted-001");
    assertThat(conv.master().size()).isEqualTo(4); // three + the UI-only status message
    assertThat(journal).hasSize(1);
  }

  @Test
  void compactTrim_withNothingToTrim_saysNoCompactionNeeded() {
    conv.append(user("u1", 10));
    CompactionOutcome o = manual.compact(conv, ManualCompaction.parse("/compact trim"), ctx(1000));
    assertThat(((CompactionOutcome.NotNeeded) o).reason()).contains("no compaction needed");
    assertThat(conv.views()).hasSize(1);
  }

  @Test
  void compactTrim_savingLittle_suggestsSummarize() {
    conv.append(user("u1", 1000));
    conv.append(call("a1", "c1"));
    conv.append(result("t1", "c1", 20));
    CompactionOutcome o = manual.compact(conv, ManualCompaction.parse("/compact trim"), ctx(1000));
    assertThat(((CompactionOutcome.Compacted) o).suggestion())
        .get()
        .asString()
        .contains("/compact summarize");
  }

  @Test
  void compactSummarize_joinsProjectAndInlineInstructions() {
    conv.append(user("u1", 10));
    conv.append(user("u2", 10));
    manual.compact(
        conv, ManualCompaction.parse("/compact summarize focus on the failing test"), ctx(1000));
    assertThat(summarize.lastConfig.extraConfig().get("instructions"))
        .isEqualTo("Always note the task id.\n\nfocus on the failing test");
  }

  @Test
  void failedSummary_reportsAndKeepsView() {
    summarize.fail = true;
    conv.append(user("u1", 10));
    conv.append(user("u2", 10));
    CompactionOutcome o =
        manual.compact(conv, ManualCompaction.parse("/compact summarize"), ctx(1000));
    assertThat(((CompactionOutcome.Failed) o).reason())
        .startsWith("Failed to generate the summary: model unavailable");
    assertThat(conv.views()).hasSize(1);
  }

  @Test
  void pendingToolCalls_blockManualCompaction() {
    conv.append(user("u1", 10));
    conv.append(call("a1", "c1"));
    CompactionOutcome o = manual.compact(conv, ManualCompaction.parse("/compact"), ctx(1000));
    assertThat(((CompactionOutcome.NotNeeded) o).reason()).contains("pending");
  }

  @Test
  void unknownStrategy_fails() {
    assertThatThrownBy(() -> manual.compact(conv, "shrink", null, ctx(1000)))
        .hasMessageContaining("shrink");
  }
}
