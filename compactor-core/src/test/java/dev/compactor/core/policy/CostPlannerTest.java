package dev.compactor.core.policy;

import static dev.compactor.core.policy.PolicyFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.SettableClock;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.ViewValidator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CostPlannerTest {
  private final SettableClock clock = startClock();
  private final List<AppliedCompaction> journal = new ArrayList<>();
  private final InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog());
  private static final AutoCompactor.Settings NO_THROTTLE =
      new AutoCompactor.Settings(0.9, 0.7, 0.10, 20, Duration.ZERO);

  /** Breaks even: masks as soon as the saving pays the rewrite once. */
  private static final CostPlanner EVEN = new CostPlanner(0.10, 1.25, 0.30, 1.0, 2, 1);

  private AutoCompactor auto(CostPlanner planner) {
    return new AutoCompactor(
            conv,
            new MaskProvider(),
            new StubOutputs(),
            new Checkpoint(),
            (m, c) -> 0.5,
            NO_THROTTLE,
            clock,
            journal::add)
        .planner(planner);
  }

  private static PolicyContext ctx(long budget) {
    return PolicyContext.of(
        "test/model", budget, CompressionConfig.builder().counter(CHARS).build());
  }

  /** A task, then {@code steps} tool steps of a 1,000-token output each. */
  private void steps(int steps) {
    conv.append(Message.builder(Role.USER).id("task").content(text(100)).build());
    for (int i = 0; i < steps; i++) {
      conv.append(
          Message.builder(Role.ASSISTANT)
              .id("a" + i)
              .content("step " + i)
              .toolCalls(List.of(new ToolCall("c" + i, "shell", "{}")))
              .build());
      conv.append(
          Message.builder(Role.TOOL).id("t" + i).toolCallId("c" + i).content(text(1000)).build());
    }
  }

  @Test
  void netSaving_isReadsSavedOverTheExpectedCalls_minusTheRewrite() {
    CostPlanner p = CostPlanner.DEFAULTS;
    assertThat(p.net(1000, 500, 100, 0)).isCloseTo(0.1 * 1000 * 100 - 1.15 * 500, within());
    assertThat(p.net(1000, 500, 100, 50)).isCloseTo(0.1 * 1000 * 100 - 1.15 * 500 - 50, within());
    assertThat(p.pays(1000, 500, 100)).isTrue();
    // 0.1 · 1,000 · 10 = 1,000 < 2 · 1.15 · 5,000
    assertThat(p.pays(1000, 5000, 10)).isFalse();
    assertThat(p.pays(0, 0, 100)).isFalse();
  }

  private static org.assertj.core.data.Offset<Double> within() {
    return org.assertj.core.data.Offset.offset(1e-6);
  }

  @Test
  void expectedCalls_areTheCallsSoFar_atLeastTheMinimum() {
    steps(7);
    assertThat(CostPlanner.DEFAULTS.expectedCalls(conv.master().messages())).isEqualTo(7);
    assertThat(CostPlanner.DEFAULTS.expectedCalls(List.of())).isEqualTo(1);
  }

  @Test
  void invalidParameters_areRejected_namingTheValue() {
    assertThatThrownBy(() -> new CostPlanner(0.5, 0.2, 0.3, 1, 2, 1))
        .hasMessageContaining("cacheRead");
    assertThatThrownBy(() -> CostPlanner.DEFAULTS.with(0, 1, 2))
        .hasMessageContaining("maskFromRatio must be in (0, 1], got 0.0");
    assertThatThrownBy(() -> CostPlanner.DEFAULTS.with(0.3, -1, 2)).hasMessageContaining("margin");
    assertThatThrownBy(() -> CostPlanner.DEFAULTS.with(0.3, 1, -1))
        .hasMessageContaining("keepLast");
  }

  @Test
  void belowTheBudget_masksEarly_whenItPays_keepingTheLastOutputs_andJournalsThePlan() {
    steps(8); // about 8,200 tokens of a 20,000 budget: over 30 %, under the 90 % reminder
    CompactionOutcome o = auto(EVEN).afterTurn(ctx(20_000));
    assertThat(o).isInstanceOf(CompactionOutcome.Compacted.class);
    assertThat(((CompactionOutcome.Compacted) o).report().strategy()).isEqualTo("mask");
    List<Message> view = conv.activeMessages();
    List<Message> outputs = view.stream().filter(m -> m.role() == Role.TOOL).toList();
    assertThat(outputs.subList(0, 6))
        .allSatisfy(m -> assertThat(m.content()).startsWith(MaskProvider.PLACEHOLDER_PREFIX));
    assertThat(outputs.subList(6, 8))
        .allSatisfy(m -> assertThat(m.content()).isEqualTo(text(1000)));
    assertThat(new ViewValidator().validate(view).isEmpty()).isTrue();
    assertThat(journal).hasSize(1);
    assertThat(String.join(" ", journal.get(0).limitations()))
        .contains("early mask")
        .contains("predicted net saving");
    // the master log keeps every original (and the UI-only status line)
    assertThat(conv.master().messages().stream().filter(m -> !m.uiOnly())).hasSize(17);
  }

  @Test
  void planFrom_isTheLeastContextThePolicyMasksEarlyAt_andMayMaskEarlyTellsWhenItCan() {
    steps(8);
    List<Message> active = conv.activeMessages();
    long tokens = new ContextMeter(CHARS).measure(active, "test/model").tokens();
    long budget = (long) (tokens / EVEN.maskFromRatio());
    while (EVEN.planFrom(budget) <= tokens) {
      budget++;
    }
    assertThat(EVEN.planFrom(budget - 1)).isLessThanOrEqualTo(tokens);
    assertThat(EVEN.due(active)).isEqualTo(6);
    assertThat(EVEN.mayMaskEarly(active, tokens, budget)).isFalse();
    assertThat(auto(EVEN).afterTurn(ctx(budget))).isInstanceOf(CompactionOutcome.NotNeeded.class);
    assertThat(EVEN.mayMaskEarly(active, tokens, budget - 1)).isTrue();
    assertThat(auto(EVEN).afterTurn(ctx(budget - 1)))
        .isInstanceOf(CompactionOutcome.Compacted.class);
    // nothing to mask outside the kept outputs, or at the budget: the planner cannot act
    assertThat(EVEN.with(0.30, 1.0, 8).mayMaskEarly(active, tokens, budget - 1)).isFalse();
    assertThat(EVEN.mayMaskEarly(active, tokens, tokens)).isFalse();
  }

  @Test
  void belowTheBudget_doesNotMask_whenTheRewriteWouldNotPayBack() {
    steps(3); // 3 calls so far: masking one output cannot pay back rewriting what follows it
    CompactionOutcome o = auto(EVEN).afterTurn(ctx(10_000));
    assertThat(o).isInstanceOf(CompactionOutcome.NotNeeded.class);
    assertThat(conv.views()).hasSize(1);
  }

  @Test
  void belowTheShareOfTheBudget_andWithoutAPlanner_nothingIsMasked() {
    steps(8);
    assertThat(auto(EVEN.with(0.9, 1.0, 2)).afterTurn(ctx(20_000)))
        .isInstanceOf(CompactionOutcome.NotNeeded.class);
    assertThat(auto(null).afterTurn(ctx(20_000))).isInstanceOf(CompactionOutcome.NotNeeded.class);
    assertThat(conv.views()).hasSize(1);
  }

  @Test
  void theJournalledPlan_readsBack_andItsRealisedSavingUsesTheCallsActuallyMade() {
    steps(8);
    auto(EVEN).afterTurn(ctx(20_000));
    CostPlanner.Plan plan = CostPlanner.Plan.of(journal.get(0).limitations()).orElseThrow();
    assertThat(plan.name()).isEqualTo("early mask");
    assertThat(plan.saved()).isPositive();
    assertThat(plan.expectedCalls()).isEqualTo(8);
    assertThat(plan.predicted())
        .isCloseTo(
            EVEN.net(plan.saved(), plan.rewritten(), 8, 0),
            org.assertj.core.data.Offset.offset(1.0));
    // the conversation ended right after: nothing saved, the rewrite paid for nothing
    assertThat(plan.realised(EVEN, 0)).isCloseTo(-(1.25 - 0.10) * plan.rewritten(), within());
    assertThat(plan.realised(EVEN, 0)).isNegative();
    assertThat(plan.realised(EVEN, 20)).isGreaterThan(plan.predicted());
    assertThat(CostPlanner.Plan.of(List.of("masked 3 tool output(s)"))).isEmpty();
  }
}
