package dev.compactor.core.recovery;

import static dev.compactor.core.recovery.RecoveryFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.message.Digests;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.policy.Trigger;
import dev.compactor.core.recovery.RecoveryReport.Outcome;
import dev.compactor.core.recovery.RecoveryReport.Rung;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.core.view.ViewValidator;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OverflowRecoveryTest {
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-02T09:00:00Z"), ZoneOffset.UTC);
  private final List<AppliedCompaction> journal = new ArrayList<>();
  private final OverflowRecovery recovery = new OverflowRecovery(CLOCK, journal::add);

  private static InMemoryConversation conversation(List<Message> messages) {
    return new InMemoryConversation(new InMemoryMasterLog(messages));
  }

  private static ChatRequest request(InMemoryConversation c) {
    return ChatRequest.builder().messages(c.activeMessages()).maxOutputTokens(100).build();
  }

  private static void assertStrictlyDecreasing(List<Long> sizes) {
    for (int i = 1; i < sizes.size(); i++) {
      assertThat(sizes.get(i))
          .as("request %d vs %d in %s", i, i - 1, sizes)
          .isLessThan(sizes.get(i - 1));
    }
  }

  private static void assertAllValid(List<List<Message>> requests, ViewValidator v) {
    for (int i = 0; i < requests.size(); i++) {
      assertThat(v.validate(requests.get(i))).as("request %d", i).isEmpty();
    }
  }

  @Test
  void requestThatFits_isSentOnce_andNothingChanges() {
    InMemoryConversation c = conversation(agentSession(20));
    View before = c.activeView();
    ScriptedModel model = new ScriptedModel();

    RecoveryResult r = recovery.call(c, model, request(c), ctx(100_000));

    assertThat(model.requests).hasSize(1);
    assertThat(r.report().retries()).isZero();
    assertThat(r.report().overflowed()).isFalse();
    assertThat(r.report().recovered()).isFalse();
    assertThat(c.activeView()).isSameAs(before);
    assertThat(c.views()).hasSize(1);
    assertThat(journal).isEmpty();
  }

  @ParameterizedTest(name = "rejects the first {0}")
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void rejectsFirstN_succeedsAfterNStrictlySmallerRetries(int n) {
    List<Message> session = agentSession(100);
    InMemoryConversation c = conversation(session);
    int masterBefore = c.master().size();
    ScriptedModel model = ScriptedModel.rejectingFirst(n);

    RecoveryResult r = recovery.call(c, model, request(c), ctx(100_000));

    RecoveryReport rep = r.report();
    assertThat(model.requests).hasSize(n + 1);
    assertThat(rep.retries()).isEqualTo(n);
    assertThat(rep.overflowed()).isTrue();
    assertThat(rep.recovered()).isTrue();
    assertThat(rep.attempts().get(1).rung()).isEqualTo(Rung.TRIM);
    for (int i = 2; i <= n; i++) {
      assertThat(rep.attempts().get(i).rung()).isEqualTo(Rung.DROP_STEPS);
    }
    assertThat(rep.tokensPerAttempt()).isEqualTo(model.sizes());
    assertStrictlyDecreasing(model.sizes());
    for (RecoveryReport.Attempt a : rep.attempts().subList(2, rep.attempts().size())) {
      // removing steps always reaches its target while removable steps remain
      assertThat(a.tokens())
          .as("attempt %d reaches its target", a.number())
          .isLessThanOrEqualTo(a.target());
    }
    assertAllValid(model.requests, new ViewValidator(ViewValidator.Target.OPENAI));
    assertVerbatim(model.requests, byIds(session, "sys", "s7", "s7-r", "u-new", "final"));

    // The answered view is active, journaled once with trigger overflow, and nothing is lost.
    assertThat(c.activeView().id()).isEqualTo("compacted-001");
    assertThat(c.views()).hasSize(2);
    assertThat(journal).hasSize(1);
    AppliedCompaction j = journal.get(0);
    assertThat(j.trigger()).isEqualTo(Trigger.OVERFLOW);
    assertThat(j.strategy())
        .isEqualTo(n == 1 ? OverflowRecovery.STRATEGY_TRIM : OverflowRecovery.STRATEGY_DROP);
    assertThat(j.tokensBefore()).isEqualTo(model.sizes().get(0));
    assertThat(j.tokensAfter()).isEqualTo(model.sizes().get(n));
    assertThat(rep.compaction()).isEqualTo(j);
    List<Message> active = c.activeMessages();
    assertThat(active.subList(0, active.size() - 1)).isEqualTo(model.requests.get(n));
    assertThat(active.get(active.size() - 1).uiOnly()).isTrue(); // the status line
    assertThat(c.master().size()).isEqualTo(masterBefore + 1);
    assertNothingLost(c);
  }

  @Test
  void rejectsNine_failsAfterEightRetries_andLeavesTheViewExactlyAsItWas() {
    InMemoryConversation c = conversation(agentSession(100));
    View before = c.activeView();
    View copy = copyOf(before);
    List<Message> masterBefore = c.master().messages();
    ScriptedModel model = ScriptedModel.rejectingFirst(9);

    RecoveryFailedException e =
        catchThrowableOfType(
            () -> recovery.call(c, model, request(c), ctx(100_000)), RecoveryFailedException.class);

    assertThat(e).isNotNull().isInstanceOf(ContextOverflowException.class);
    assertThat(e.getMessage()).contains("after 8 retries").contains("unchanged");
    assertThat(e.getCause()).isInstanceOf(ContextOverflowException.class);
    assertThat(e.report().retries()).isEqualTo(8);
    assertThat(e.report().recovered()).isFalse();
    assertThat(e.report().attempts()).allMatch(a -> a.outcome() == Outcome.OVERFLOW);
    assertThat(model.requests).hasSize(9);
    assertStrictlyDecreasing(model.sizes());
    assertThat(c.activeView()).isSameAs(before).isEqualTo(copy);
    assertThat(c.views()).containsExactly(before);
    assertThat(c.master().messages()).isEqualTo(masterBefore);
    assertThat(journal).isEmpty();
  }

  @Test
  void overflowThatNeverGoesAway_stopsWhenNothingRemovableIsLeft_neverSendingALargerInput() {
    List<Message> session = agentSession(6);
    InMemoryConversation c = conversation(session);
    View before = c.activeView();
    ScriptedModel model = new ScriptedModel();
    model.overflowOn = k -> true;

    RecoveryFailedException e =
        catchThrowableOfType(
            () -> recovery.call(c, model, request(c), ctx(100_000)), RecoveryFailedException.class);

    assertThat(e.getMessage()).contains("nothing removable is left").contains("protected head");
    assertThat(e.report().retries()).isBetween(1, 7);
    assertThat(model.requests).hasSize(e.report().retries() + 1);
    assertStrictlyDecreasing(model.sizes());
    assertVerbatim(model.requests, byIds(session, "sys", "u-new", "final"));
    assertAllValid(model.requests, new ViewValidator());
    // The last request holds only the protected messages and markers.
    List<Message> last = model.requests.get(model.requests.size() - 1);
    for (Message m : last) {
      boolean marker = m.metadata().extra().containsKey(OverflowRecovery.MARKER_KEY);
      assertThat(marker || List.of("sys", "u-new", "final").contains(m.id().value()))
          .as("left in the last request: %s", m.id())
          .isTrue();
    }
    assertThat(c.activeView()).isSameAs(before);
    assertThat(c.views()).hasSize(1);
  }

  @Test
  void hugeOutputInTheFinalStep_isTruncated_headAndTailKept_recoverable_commandNamed() {
    String output = text("out", 20_000);
    List<Message> session = new Builder().system("sys", 50).user("u-new", 40).build();
    List<Message> all = new ArrayList<>(session);
    all.add(
        Message.builder(Role.ASSISTANT)
            .id("call")
            .toolCalls(
                List.of(new dev.compactor.core.message.ToolCall("c1", "shell", "cat big.log")))
            .timestamp(Instant.parse("2026-03-01T11:00:00Z"))
            .build());
    all.add(
        Message.builder(Role.TOOL)
            .id("out")
            .toolCallId("c1")
            .content(output)
            .timestamp(Instant.parse("2026-03-01T11:00:01Z"))
            .build());
    InMemoryConversation c = conversation(all);
    ScriptedModel model = ScriptedModel.rejectingFirst(1);
    dev.compactor.core.compaction.fixtures.RecordingArchive archive =
        new dev.compactor.core.compaction.fixtures.RecordingArchive();
    PolicyContext ctx =
        PolicyContext.of(
            "test/model",
            100_000,
            CompressionConfig.builder().counter(CHARS).archive(archive).build());

    RecoveryResult r = recovery.call(c, model, request(c), ctx);

    assertThat(r.report().recovered()).isTrue();
    assertThat(model.requests).hasSize(2);
    Message cut = model.requests.get(1).get(3);
    assertThat(cut.content())
        .startsWith(output.substring(0, 100))
        .endsWith(output.substring(output.length() - 100))
        .contains("of the output of (shell cat big.log)")
        .contains("saved#1 of out");
    assertThat(model.requests.get(1).subList(0, 3)).isEqualTo(all.subList(0, 3));
    assertStrictlyDecreasing(model.sizes());
    assertThat(c.recover(cut.id())).isNotEmpty();
  }

  @Test
  void onlyProtectedMessages_failsWithoutARetry() {
    List<Message> session =
        new Builder().system("sys", 50).user("u-new", 400).assistant("final", 20).build();
    InMemoryConversation c = conversation(session);
    ScriptedModel model = ScriptedModel.rejectingFirst(1);

    RecoveryFailedException e =
        catchThrowableOfType(
            () -> recovery.call(c, model, request(c), ctx(100_000)), RecoveryFailedException.class);

    assertThat(e.report().retries()).isZero();
    assertThat(model.requests).hasSize(1);
    assertThat(e.getMessage()).contains("after 0 retries");
  }

  @Test
  void partialOutput_isRethrownUnchanged_withoutARetry() {
    InMemoryConversation c = conversation(agentSession(30));
    View before = c.activeView();
    ScriptedModel model = ScriptedModel.rejectingFirst(1);
    model.partialOn = k -> true;

    ContextOverflowException e =
        catchThrowableOfType(
            () -> recovery.call(c, model, request(c), ctx(100_000)),
            ContextOverflowException.class);

    assertThat(e).isNotInstanceOf(RecoveryFailedException.class);
    assertThat(e.hasPartialOutput()).isTrue();
    assertThat(model.requests).hasSize(1);
    assertThat(c.activeView()).isSameAs(before);
  }

  @Test
  void partialOutputOnARetry_stopsRecovery_andKeepsTheOriginalView() {
    InMemoryConversation c = conversation(agentSession(30));
    View before = c.activeView();
    ScriptedModel model = ScriptedModel.rejectingFirst(3);
    model.partialOn = k -> k == 1;

    assertThatThrownBy(() -> recovery.call(c, model, request(c), ctx(100_000)))
        .isInstanceOf(ContextOverflowException.class)
        .isNotInstanceOf(RecoveryFailedException.class);
    assertThat(model.requests).hasSize(2);
    assertThat(c.activeView()).isSameAs(before);
    assertThat(c.views()).hasSize(1);
    assertThat(journal).isEmpty();
  }

  @Test
  void anotherErrorDuringRecovery_propagates_andKeepsTheOriginalView() {
    InMemoryConversation c = conversation(agentSession(30));
    View before = c.activeView();
    ScriptedModel model = ScriptedModel.rejectingFirst(3);
    model.errorOnSecond =
        new RetryableModelException("test: 503", ModelError.of("test", 503), null, null, null);

    assertThatThrownBy(() -> recovery.call(c, model, request(c), ctx(100_000)))
        .isSameAs(model.errorOnSecond);
    assertThat(c.activeView()).isSameAs(before);
    assertThat(journal).isEmpty();
  }

  @Test
  void trimThatCannotShrink_movesOnToRemovingSteps_inTheSameRetry() {
    // Tool outputs under 200 tokens: nothing for the trim to stub, truncate or compress.
    Builder b = new Builder().system("sys", 40).user("u-first", 100);
    for (int i = 0; i < 40; i++) {
      b.step("s" + i, 150, false);
    }
    List<Message> session = b.user("u-new", 50).assistant("final", 20).build();
    InMemoryConversation c = conversation(session);
    ScriptedModel model = ScriptedModel.rejectingFirst(1);

    RecoveryResult r = recovery.call(c, model, request(c), ctx(100_000));

    assertThat(r.report().retries()).isEqualTo(1);
    assertThat(r.report().attempts().get(1).rung()).isEqualTo(Rung.DROP_STEPS);
    assertStrictlyDecreasing(model.sizes());
    assertNothingLost(c);
  }

  @Test
  void providerCounts_setTheFirstTarget() {
    InMemoryConversation c = conversation(agentSession(100));
    ScriptedModel model = ScriptedModel.rejectingFirst(1);
    model.reportedPrompt = 13_392L;
    model.reportedWindow = 8_192L;

    RecoveryResult r = recovery.call(c, model, request(c), ctx(100_000));

    long prev = r.report().attempts().get(0).tokens();
    long expected = (long) Math.floor(prev * (8_192.0 / 13_392) * 0.9);
    assertThat(r.report().attempts().get(1).target()).isEqualTo(expected);
    assertThat(r.report().attempts().get(1).tokens()).isLessThanOrEqualTo(expected);
    assertThat(r.report().attempts().get(0).reportedPromptTokens()).hasValue(13_392);
  }

  @Test
  void target_promptWithinWindow_usesTheWindowLessTheOutputLimit() {
    ContextOverflowException e =
        new ContextOverflowException(
            "input length and max_tokens exceed context limit: 190000 + 20000 > 200000",
            ModelError.of("anthropic", 400),
            java.util.OptionalLong.of(190_000),
            java.util.OptionalLong.of(200_000),
            null,
            null);
    ChatRequest req =
        ChatRequest.builder().messages(List.of(Message.user("x"))).maxOutputTokens(20_000).build();
    // (200000 - 20000) / 190000 * 0.9 of 100000
    assertThat(recovery.target(1, 100_000, e, req)).isEqualTo(85_263);
    // later retries: the 70 % step unless the provider's is tighter
    assertThat(recovery.target(2, 100_000, e, req)).isEqualTo(70_000);
    ChatRequest noLimit = ChatRequest.of(List.of(Message.user("x")));
    assertThat(recovery.target(1, 100_000, e, noLimit)).isEqualTo(70_000);
  }

  @Test
  void markers_standForTheRemovedMessages_andMergeAcrossRetries() {
    List<Message> session = agentSession(60);
    InMemoryConversation c = conversation(session);
    ScriptedModel model = ScriptedModel.rejectingFirst(4);

    recovery.call(c, model, request(c), ctx(100_000));

    List<ViewEntry.Synthesized> markers = new ArrayList<>();
    for (ViewEntry e : c.activeView().entries()) {
      if (e instanceof ViewEntry.Synthesized s
          && s.message().metadata().extra().containsKey(OverflowRecovery.MARKER_KEY)) {
        markers.add(s);
      }
    }
    assertThat(markers).isNotEmpty();
    for (ViewEntry.Synthesized s : markers) {
      Message m = s.message();
      assertThat(m.role()).isEqualTo(Role.USER);
      assertThat(m.content())
          .matches("\\[\\d+ earlier messages? removed to fit the context window; recoverable.*\\]")
          .contains(m.id().value());
      List<Message> back = c.recover(m.id());
      assertThat(back).isNotEmpty().allMatch(session::contains);
      long count = ((Number) m.metadata().extra().get(OverflowRecovery.MARKER_KEY)).longValue();
      assertThat(count).isEqualTo(back.stream().filter(x -> !x.uiOnly()).count());
    }
    // One marker per removed run: no two markers in a row.
    List<Message> active = c.activeMessages();
    for (int i = 1; i < active.size(); i++) {
      boolean a = active.get(i - 1).metadata().extra().containsKey(OverflowRecovery.MARKER_KEY);
      boolean b = active.get(i).metadata().extra().containsKey(OverflowRecovery.MARKER_KEY);
      assertThat(a && b).as("markers at %d and %d", i - 1, i).isFalse();
    }
    assertNothingLost(c);
  }

  @Test
  void keepHeadAndPinnedAndUiOnly_areRespected() {
    Builder b = new Builder().system("sys", 40).user("u-first", 100).assistant("a-first", 80);
    for (int i = 0; i < 50; i++) {
      b.step("s" + i, 300, i == 20);
      if (i == 30) {
        b.uiOnly("ui30");
      }
    }
    List<Message> session = b.user("u-new", 50).assistant("final", 20).build();
    InMemoryConversation c = conversation(session);
    ScriptedModel model = ScriptedModel.rejectingFirst(6);
    PolicyContext ctx =
        PolicyContext.of(
            "test/model", 100_000, CompressionConfig.builder().counter(CHARS).keepHead(3).build());

    recovery.call(c, model, request(c), ctx);

    assertVerbatim(
        model.requests,
        byIds(session, "sys", "u-first", "a-first", "s20", "s20-r", "u-new", "final"));
    assertStrictlyDecreasing(model.sizes());
    assertNothingLost(c);
  }

  @Test
  void anthropicModel_everyRetryKeepsAnthropicRoleRules() {
    // The first request after the system prompt is removable: the marker takes its place.
    List<Message> session = agentSession(50);
    InMemoryConversation c = conversation(session);
    ScriptedModel model = ScriptedModel.rejectingFirst(5);
    model.api = ModelApi.ANTHROPIC_MESSAGES;

    recovery.call(c, model, request(c), ctx(100_000));

    assertAllValid(model.requests, new ViewValidator(ViewValidator.Target.ANTHROPIC));
    assertThat(model.requests.get(5).get(1).role()).isEqualTo(Role.USER);
  }

  @Test
  void withReasoning_aRemovedRunIsNeverFollowedByAToolLoopMissingItsThinking() {
    Builder b = new Builder().system("sys", 40);
    for (int t = 0; t < 12; t++) {
      b.user("q" + t, 60);
      for (int i = 0; i < 4; i++) {
        b.step("t" + t + "-" + i, 200, false, i == 0); // thinking on the first step of each loop
      }
      b.assistant("ans" + t, 40);
    }
    List<Message> session = b.user("u-new", 30).step("f0", 100, false, true).build();
    InMemoryConversation c = conversation(session);
    ScriptedModel model = ScriptedModel.rejectingFirst(5);

    recovery.call(c, model, request(c), ctx(100_000));

    for (List<Message> req : model.requests) {
      for (int i = 0; i + 1 < req.size(); i++) {
        if (req.get(i).metadata().extra().containsKey(OverflowRecovery.MARKER_KEY)) {
          Message next = req.get(i + 1);
          assertThat(next.role() == Role.USER || !next.reasoning().isEmpty())
              .as("after marker: %s", next.id())
              .isTrue();
        }
      }
    }
    assertStrictlyDecreasing(model.sizes());
    assertVerbatim(model.requests, byIds(session, "u-new", "f0", "f0-r"));
  }

  @Test
  void reply_isStampedAgainstTheActiveMessagesAfterTheSwitch() {
    InMemoryConversation c = conversation(agentSession(40));
    ScriptedModel model = ScriptedModel.rejectingFirst(2);

    RecoveryResult r = recovery.call(c, model, request(c), ctx(100_000));

    InputFingerprint fp = r.response().message().metadata().input();
    List<Message> active = c.activeMessages();
    assertThat(fp.messageCount()).isEqualTo(active.size());
    assertThat(fp.digest()).isEqualTo(Digests.prefix(active));
    assertThat(fp.model()).isEqualTo("model");
  }

  @Test
  void stream_recoversTheSameWay_andTheListenerSeesOnlyTheAnswer() {
    InMemoryConversation c = conversation(agentSession(40));
    ScriptedModel model = ScriptedModel.rejectingFirst(2);
    StringBuilder text = new StringBuilder();

    RecoveryResult r =
        recovery.stream(
            c,
            model,
            request(c),
            ctx(100_000),
            new StreamListener() {
              @Override
              public void onText(String delta) {
                text.append(delta);
              }
            });

    assertThat(r.report().retries()).isEqualTo(2);
    assertThat(text).hasToString("ok");
  }

  @Test
  void secondRecovery_swallowsTheFirstOnesMarkers_andStaysRecoverable() {
    List<Message> session = agentSession(80);
    InMemoryConversation c = conversation(session);
    recovery.call(c, ScriptedModel.rejectingFirst(3), request(c), ctx(100_000));
    c.append(Message.user("and now?"));
    c.append(Message.assistant("working"));

    ScriptedModel second = ScriptedModel.rejectingFirst(4);
    RecoveryResult r = recovery.call(c, second, request(c), ctx(100_000));

    assertThat(r.report().recovered()).isTrue();
    assertThat(c.activeView().id()).isEqualTo("compacted-002");
    assertStrictlyDecreasing(second.sizes());
    assertNothingLost(c);
    assertThat(journal).hasSize(2);
  }

  @Test
  void settings_rejectBadValues() {
    assertThatThrownBy(() -> new OverflowRecovery.Settings(-1, 0.7, 0.9))
        .hasMessageContaining("maxRetries");
    assertThatThrownBy(() -> new OverflowRecovery.Settings(8, 1.0, 0.9))
        .hasMessageContaining("stepRatio");
    assertThatThrownBy(() -> new OverflowRecovery.Settings(8, 0.7, 0))
        .hasMessageContaining("providerMargin");
  }
}
