package dev.compactor.core.policy;

import static dev.compactor.core.policy.PolicyFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.SettableClock;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.TestProviders;
import dev.compactor.core.message.Message;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.ViewValidator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AutoCompactorTest {
  private final SettableClock clock = startClock();
  private final StubOutputs trim = new StubOutputs();
  private final Checkpoint summarize = new Checkpoint();
  private final List<AppliedCompaction> journal = new ArrayList<>();
  private double savings = 0.5;
  private InMemoryConversation conv;
  private AutoCompactor auto;

  private static final AutoCompactor.Settings NO_THROTTLE =
      new AutoCompactor.Settings(0.9, 0.7, 0.10, 20, Duration.ZERO);

  @BeforeEach
  void setUp() {
    conv = new InMemoryConversation(new InMemoryMasterLog());
    auto = newAuto(NO_THROTTLE);
  }

  private AutoCompactor newAuto(AutoCompactor.Settings s) {
    return new AutoCompactor(conv, trim, summarize, (m, c) -> savings, s, clock, journal::add);
  }

  private PolicyContext ctx(long budget) {
    return PolicyContext.of(
        "test/model", budget, CompressionConfig.builder().counter(CHARS).build());
  }

  private void fill(int... tokens) {
    int i = 0;
    for (int t : tokens) {
      conv.append(user("u" + conv.master().size() + "-" + i++, t));
    }
  }

  @Test
  void belowNinetyPercent_doesNothing() {
    fill(10, 800, 89);
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(o).isInstanceOf(CompactionOutcome.NotNeeded.class);
    assertThat(o.tokens()).isEqualTo(899);
    assertThat(conv.views()).hasSize(1);
  }

  @Test
  void exactlyNinetyPercent_remindsOncePerView_withInstructions() {
    fill(10, 800, 90);
    CompactionOutcome o = auto.afterTurn(ctx(1000).withInstructions("Note the task id."));
    assertThat(o).isInstanceOf(CompactionOutcome.Reminded.class);
    Message reminder = ((CompactionOutcome.Reminded) o).reminder();
    assertThat(reminder.content())
        .contains("objective")
        .contains("decisions")
        .contains("next move")
        .contains("files to reload")
        .contains("Note the task id.");
    assertThat(reminder.uiOnly()).isFalse();
    assertThat(conv.activeMessages()).endsWith(reminder);
    // The reminder itself pushed the context over 90 % but not to the budget: no second one.
    CompactionOutcome again = auto.afterTurn(ctx(10_000));
    assertThat(again).isInstanceOf(CompactionOutcome.NotNeeded.class);
    CompactionOutcome third = auto.afterTurn(ctx(reminderBudget()));
    assertThat(third).isInstanceOf(CompactionOutcome.NotNeeded.class);
    assertThat(((CompactionOutcome.NotNeeded) third).reason()).contains("already sent");
  }

  private long reminderBudget() {
    long tokens = CHARS.countMessages(conv.activeMessages());
    return (long) Math.ceil(tokens / 0.95);
  }

  @Test
  void reminder_isDeferredWhileToolCallsArePending() {
    fill(10, 800);
    conv.append(call("a1", "c1"));
    conv.append(result("t1", "c1", 1)); // ... of two calls: still pending? no, one call: answered
    conv.append(call("a2", "c2"));
    CompactionOutcome o = auto.afterTurn(ctx(900));
    assertThat(o).isInstanceOf(CompactionOutcome.NotNeeded.class);
    assertThat(((CompactionOutcome.NotNeeded) o).reason()).contains("pending");
    conv.append(result("t2", "c2", 89));
    assertThat(auto.afterTurn(ctx(1000))).isInstanceOf(CompactionOutcome.Reminded.class);
  }

  @Test
  void atBudget_trims_makesNewView_journals_andKeepsMasterComplete() {
    appendToolTurn(conv, 10, 800, 200);
    List<Message> before = conv.master().messages();
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(o).isInstanceOf(CompactionOutcome.Compacted.class);
    AppliedCompaction r = ((CompactionOutcome.Compacted) o).report();
    assertThat(r.strategy()).isEqualTo("trim");
    assertThat(r.trigger()).isEqualTo(Trigger.AUTO);
    assertThat(r.tokensBefore()).isEqualTo(1015); // 10 + "shell" + 800 + 200
    assertThat(r.tokensAfter()).isEqualTo(216);
    assertThat(r.viewId()).isEqualTo("compacted-001");
    assertThat(journal).containsExactly(r);
    assertThat(conv.activeView().id()).isEqualTo("compacted-001");
    assertThat(conv.master().messages()).startsWith(before.toArray(Message[]::new));
    assertThat(conv.recover(conv.activeMessages().get(2).id()).get(0).content()).hasSize(800);
    assertThat(new ViewValidator().validate(conv.activeMessages())).isEmpty();
    assertThat(summarize.calls).isZero();
  }

  @Test
  void lowEstimatedSavings_summarizesInstead() {
    savings = 0.05;
    fill(10, 800, 200);
    CompactionOutcome o = auto.afterTurn(ctx(1000).withInstructions("keep the branch name"));
    assertThat(o).isInstanceOf(CompactionOutcome.Compacted.class);
    assertThat(((CompactionOutcome.Compacted) o).report().strategy()).isEqualTo("summarize");
    assertThat(trim.calls).isZero();
    assertThat(summarize.lastConfig.extraConfig())
        .containsEntry("instructions", "keep the branch name")
        .containsEntry("keep_recent_tokens", 350L); // 20,000 capped at 35 % of the budget
    assertThat(summarize.lastConfig.limit()).isEqualTo(1000);
  }

  @Test
  void trimThatSavesLittle_isRejected_andSummaryRuns() {
    savings = 0.5; // the estimate promises much, but the stub saves nothing on user text
    fill(10, 800, 200);
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(trim.calls).isEqualTo(1);
    assertThat(((CompactionOutcome.Compacted) o).report().strategy()).isEqualTo("summarize");
    assertThat(conv.views()).hasSize(2);
  }

  @Test
  void failedSummary_latchesToTrimOnly_untilTwentyMoreMessages() {
    savings = 0.0;
    summarize.fail = true;
    fill(10, 800, 200);
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(o).isInstanceOf(CompactionOutcome.Failed.class);
    assertThat(((CompactionOutcome.Failed) o).reason()).contains("model unavailable");
    assertThat(conv.views()).hasSize(1);
    assertThat(auto.latched()).isTrue();

    summarize.fail = false;
    conv.append(user("more", 1));
    CompactionOutcome latched = auto.afterTurn(ctx(1000));
    assertThat(latched).isInstanceOf(CompactionOutcome.Failed.class);
    assertThat(((CompactionOutcome.Failed) latched).reason()).contains("paused");
    assertThat(summarize.calls).isEqualTo(1);

    for (int i = 0; i < 19; i++) {
      conv.append(user("grow" + i, 1));
    }
    assertThat(auto.latched()).isFalse();
    CompactionOutcome retried = auto.afterTurn(ctx(1000));
    assertThat(retried).isInstanceOf(CompactionOutcome.Compacted.class);
    assertThat(summarize.calls).isEqualTo(2);
  }

  @Test
  void summaryThatSavesNothing_isAFailedSummary_noNewView_andLatches() {
    // Only the final message is big: a checkpoint of the rest is larger than the rest.
    savings = 0.0;
    fill(1, 1500);
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(summarize.calls).isEqualTo(1);
    assertThat(o).isInstanceOf(CompactionOutcome.Failed.class);
    assertThat(((CompactionOutcome.Failed) o).reason()).contains("summary would leave");
    assertThat(conv.views()).hasSize(1);
    assertThat(journal).isEmpty();
    assertThat(auto.latched()).isTrue();
  }

  @Test
  void latch_survivesAReload_ofTheSameLog() {
    savings = 0.0;
    summarize.fail = true;
    fill(10, 800, 200);
    auto.afterTurn(ctx(1000));
    AutoCompactor reloaded = newAuto(NO_THROTTLE);
    assertThat(reloaded.latched()).isTrue();
  }

  @Test
  void uiOnlyMessages_areNotGrowth_andNotCounted() {
    fill(10, 800, 89);
    conv.append(
        Message.builder(dev.compactor.core.message.Role.SYSTEM)
            .id("status")
            .content(text(5000))
            .uiOnly(true)
            .build());
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(o.tokens()).isEqualTo(899);
  }

  @Test
  void throttle_isNotArmedByAFailedCompaction_norByACheckThatFoundNothing() {
    auto = newAuto(AutoCompactor.Settings.DEFAULTS);
    fill(10, 800, 200);
    savings = 0.0;
    summarize.fail = true;
    assertThat(auto.afterTurn(ctx(1000))).isInstanceOf(CompactionOutcome.Failed.class);
    CompactionOutcome again = auto.afterTurn(ctx(1000));
    assertThat(again).isInstanceOf(CompactionOutcome.Failed.class); // checked again, not throttled
    CompactionOutcome below = auto.afterTurn(ctx(100_000));
    assertThat(((CompactionOutcome.NotNeeded) below).reason()).contains("below");
    assertThat(((CompactionOutcome.NotNeeded) auto.afterTurn(ctx(100_000))).reason())
        .contains("below");
  }

  @Test
  void throttle_isArmedByAnAppliedCompaction() {
    auto = newAuto(AutoCompactor.Settings.DEFAULTS);
    appendToolTurn(conv, 10, 800, 200);
    assertThat(auto.afterTurn(ctx(1000))).isInstanceOf(CompactionOutcome.Compacted.class);
    CompactionOutcome o = auto.afterTurn(ctx(100));
    assertThat(((CompactionOutcome.NotNeeded) o).reason()).contains("throttled");
    clock.advance(Duration.ofSeconds(61));
    assertThat(auto.afterTurn(ctx(100))).isNotInstanceOf(CompactionOutcome.NotNeeded.class);
  }

  @Test
  void latch_isNotLiftedByASuccessfulTrim_onlyByASuccessfulSummary() {
    savings = 0.0;
    summarize.fail = true;
    fill(10, 800, 200);
    assertThat(auto.afterTurn(ctx(1000))).isInstanceOf(CompactionOutcome.Failed.class);
    assertThat(auto.latched()).isTrue();
    conv.append(call("a1", "c1"));
    conv.append(result("t1", "c1", 900));
    conv.append(assistant("a2", 5));
    CompactionOutcome trimmed = auto.afterTurn(ctx(1000));
    assertThat(((CompactionOutcome.Compacted) trimmed).report().strategy()).isEqualTo("trim");
    assertThat(auto.latched()).isTrue();

    summarize.fail = false;
    ManualCompactor manual = new ManualCompactor(n -> summarize, clock, journal::add);
    assertThat(manual.compact(conv, "summarize", null, ctx(100)))
        .isInstanceOf(CompactionOutcome.Compacted.class);
    assertThat(auto.latched()).isFalse();
  }

  @Test
  void pendingCalls_areFound_whateverComesBetweenTheCallAndItsResult() {
    fill(10, 800);
    conv.append(call("a1", "c1"));
    conv.append(user("interjection", 150)); // e.g. a reminder or a user message
    CompactionOutcome o = auto.afterTurn(ctx(900));
    assertThat(((CompactionOutcome.NotNeeded) o).reason()).contains("pending");
    assertThat(PendingCalls.of(conv.activeMessages())).containsExactly("c1");
    conv.append(result("t1", "c1", 1));
    assertThat(PendingCalls.any(conv.activeMessages())).isFalse();
  }

  @Test
  void newView_rearmsTheReminder() {
    appendToolTurn(conv, 10, 800, 200);
    assertThat(auto.afterTurn(ctx(1000))).isInstanceOf(CompactionOutcome.Compacted.class);
    // now 211 tokens in view compacted-001; grow to 90 % of 300
    fill(60);
    assertThat(auto.afterTurn(ctx(300))).isInstanceOf(CompactionOutcome.Reminded.class);
  }

  @Test
  void trimThatStaysOverBudget_givesWayToSummary() {
    appendToolTurn(conv, 1200, 800, 5);
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(trim.calls).isEqualTo(1);
    assertThat(((CompactionOutcome.Compacted) o).report().strategy()).isEqualTo("summarize");
  }

  @Test
  void standardPolicy_usesTheRegisteredBuiltIns() {
    AutoCompactor standard = AutoCompactor.standard(conv, journal::add);
    fill(10);
    assertThat(standard.afterTurn(ctx(1000))).isInstanceOf(CompactionOutcome.NotNeeded.class);
  }

  @Test
  void maskingFirst_whenItIsEnough_neitherTrimNorSummaryRuns() {
    StubOutputs masker = new StubOutputs();
    dev.compactor.core.compaction.ContextProvider mask =
        TestProviders.eager(
            "mask",
            (m, c) -> {
              assertThat(c.extraConfig()).containsEntry("keep_last", AutoCompactor.MASK_KEEP_LAST);
              return masker.compress(m, c);
            });
    auto =
        new AutoCompactor(
            conv, mask, trim, summarize, (m, c) -> savings, NO_THROTTLE, clock, journal::add);
    appendToolTurn(conv, 10, 800, 200);
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(((CompactionOutcome.Compacted) o).report().strategy()).isEqualTo("mask");
    assertThat(trim.calls).isZero();
    assertThat(summarize.calls).isZero();
  }

  @Test
  void maskingFirst_thatIsNotEnough_fallsThroughToTrimAndSummary() {
    StubOutputs masker = new StubOutputs();
    auto =
        new AutoCompactor(
            conv, masker, trim, summarize, (m, c) -> savings, NO_THROTTLE, clock, journal::add);
    fill(10, 800, 200); // no tool output: masking saves nothing
    CompactionOutcome o = auto.afterTurn(ctx(1000));
    assertThat(masker.calls).isEqualTo(1);
    assertThat(((CompactionOutcome.Compacted) o).report().strategy()).isEqualTo("summarize");
  }
}
