package dev.compactor.core.policy;

import static dev.compactor.core.policy.PolicyFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.SettableClock;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.TestProviders;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ManualCompactorTest {
  private final SettableClock clock = startClock();
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
    appendAnsweredCall(conv, 10, 800);
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
    appendAnsweredCall(conv, 1000, 20);
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
  void pendingFinalStep_isKeptVerbatim_andEverythingBeforeItIsCompacted() {
    // A recorded agent trajectory ends with a call that never got its result.
    appendAnsweredCall(conv, 10, 800);
    conv.append(call("a2", "c2"));
    CompactionOutcome o = manual.compact(conv, ManualCompaction.parse("/compact"), ctx(500));
    assertThat(o).isInstanceOf(CompactionOutcome.Compacted.class);
    List<dev.compactor.core.message.Message> active = conv.activeMessages();
    assertThat(active.get(2).content()).isEqualTo("s");
    assertThat(active.get(3).id().value()).isEqualTo("a2");
    assertThat(active.subList(4, active.size()))
        .allMatch(dev.compactor.core.message.Message::uiOnly);
    assertThat(((CompactionOutcome.Compacted) o).withinBudget()).isTrue();
  }

  @Test
  void strategyRewritingThePendingStep_isRefused() {
    ContextProvider dropLast =
        TestProviders.eager(
            "drop-last",
            (m, c) ->
                dev.compactor.core.compaction.CompactionResult.of(
                    m, m.subList(0, m.size() - 1), List.of(), Map.of()));
    ManualCompactor m = new ManualCompactor(n -> dropLast, clock, journal::add);
    conv.append(user("u1", 10));
    conv.append(call("a2", "c2"));
    CompactionOutcome o = m.compact(conv, "drop-last", null, ctx(5));
    assertThat(((CompactionOutcome.Failed) o).reason()).contains("pending final step");
    assertThat(conv.views()).hasSize(1);
  }

  @Test
  void overBudget_withNothingRemovable_isLimited_neverNotNeeded() {
    conv.append(user("u1", 10));
    conv.append(assistant("a1", 1500));
    conv.append(user("u2", 10));
    CompactionOutcome o = manual.compact(conv, "trim", null, ctx(1000));
    assertThat(o).isInstanceOf(CompactionOutcome.Limited.class);
    Shortfall s = ((CompactionOutcome.Limited) o).shortfall();
    assertThat(s.cause()).isEqualTo(Shortfall.Cause.NOTHING_REMOVABLE);
    assertThat(s.remedies().get(0)).isEqualTo(new Shortfall.Remedy.OtherStrategy("summarize"));
    assertThat(s.remedies()).contains(new Shortfall.Remedy.LargerBudget(1520));
    assertThat(s.reason()).contains("over budget").contains("summarize");
    assertThat(conv.views()).hasSize(1);
  }

  @Test
  void overBudget_withTooLargeProtectedPart_saysSo() {
    conv.append(user("u1", 2000));
    CompactionOutcome o = manual.compact(conv, "trim", null, ctx(1000));
    Shortfall s = ((CompactionOutcome.Limited) o).shortfall();
    assertThat(s.cause()).isEqualTo(Shortfall.Cause.PROTECTED_TOO_LARGE);
    assertThat(s.protectedTokens()).isEqualTo(2000);
    assertThat(s.remedies()).containsExactly(new Shortfall.Remedy.LargerBudget(2000));
  }

  @Test
  void compactedButStillOverBudget_carriesAShortfall() {
    appendToolTurn(conv, 2000, 800, 5);
    CompactionOutcome o = manual.compact(conv, "trim", null, ctx(1000));
    CompactionOutcome.Compacted c = (CompactionOutcome.Compacted) o;
    assertThat(c.withinBudget()).isFalse();
    assertThat(c.shortfall().get().tokens()).isEqualTo(c.report().tokensAfter());
    assertThat(c.shortfall().get().cause()).isEqualTo(Shortfall.Cause.PROTECTED_TOO_LARGE);
  }

  @Test
  void summaryThatWouldGrowTheView_isNeverApplied() {
    // The fixture's checkpoint ("## Objective\nok", 15 tokens) is larger than the 10 it replaces.
    conv.append(user("u1", 10));
    conv.append(user("u2", 10));
    CompactionOutcome within = manual.compact(conv, "summarize", null, ctx(1000));
    assertThat(((CompactionOutcome.NotNeeded) within).reason()).contains("would not make");
    CompactionOutcome over = manual.compact(conv, "summarize", null, ctx(15));
    assertThat(((CompactionOutcome.Limited) over).shortfall().cause())
        .isEqualTo(Shortfall.Cause.WOULD_NOT_SHRINK);
    assertThat(conv.views()).hasSize(1);
    assertThat(journal).isEmpty();
  }

  @Test
  void errorWithoutMessage_namesTheExceptionType() {
    ContextProvider npe =
        TestProviders.eager(
            "summarize",
            (m, c) -> {
              throw new CompactorException(null, new IllegalStateException());
            });
    conv.append(user("u1", 10));
    CompactionOutcome o =
        new ManualCompactor(n -> npe, clock, journal::add).compact(conv, "summarize", null, ctx(5));
    assertThat(((CompactionOutcome.Failed) o).reason())
        .contains("CompactorException")
        .contains("IllegalStateException");
  }

  @Test
  void unknownStrategy_fails() {
    assertThatThrownBy(() -> manual.compact(conv, "shrink", null, ctx(1000)))
        .hasMessageContaining("shrink");
  }
}
