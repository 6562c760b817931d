package dev.compactor.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import dev.compactor.core.tokens.ContextMeasurement.Source;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ContextMeterTest {
  private static final String MODEL = "openai/gpt-4o";
  private static final TokenCounter COUNTER = TokenCounters.o200k();

  /** An assistant response whose usage was reported for exactly {@code prefix} on {@code model}. */
  static Message response(List<Message> prefix, String text, Usage usage, String model) {
    return Message.builder(Role.ASSISTANT)
        .content(text)
        .metadata(
            MessageMetadata.EMPTY
                .withModel(model)
                .withUsage(usage)
                .withInput(new InputFingerprint(prefix.size(), Digests.prefix(prefix), model)))
        .build();
  }

  static List<Message> anchoredConversation() {
    List<Message> log = new ArrayList<>();
    log.add(Message.system("You are a coding assistant."));
    log.add(Message.user("Fix the failing test."));
    log.add(response(log, "I'll look at it.", new Usage(10, 20, 800, 200, 0), MODEL));
    return log;
  }

  /**
   * {@code questions} user messages {@code q0, q1, …} and the answer {@code a} to them, reported
   * with 5,000 input tokens: a log the meter can anchor on (mutable, for edits).
   */
  private static List<Message> answeredQuestions(int questions) {
    List<Message> log = new ArrayList<>();
    for (int i = 0; i < questions; i++) {
      log.add(Message.user("q" + i));
    }
    log.add(response(log, "a", new Usage(5000, 1, 0, 0, 0), MODEL));
    return log;
  }

  @Test
  void anchor_usesReportedInputPlusEstimateOfResponseAndLaterMessages() {
    List<Message> log = anchoredConversation();
    log.add(Message.user("Any progress?"));
    ContextMeasurement m = ContextMeter.measureOnce(log, MODEL, COUNTER);

    assertThat(m.source()).isEqualTo(Source.ANCHOR);
    assertThat(m.anchorIndex()).isEqualTo(2);
    assertThat(m.reportedTokens()).isEqualTo(10 + 800 + 200);
    assertThat(m.estimatedTokens())
        .isEqualTo(COUNTER.countMessage(log.get(2)) + COUNTER.countMessage(log.get(3)));
    assertThat(m.tokens()).isEqualTo(m.reportedTokens() + m.estimatedTokens());
    assertThat(m.rejectedReason()).isNull();
  }

  @Test
  void measureOnce_withoutAnyCandidate_givesWhatAMeterGives() {
    List<Message> log = new ArrayList<>();
    log.add(Message.system("You are a coding assistant."));
    log.add(Message.user("Fix the failing test."));
    log.add(Message.assistant("I'll look at it.")); // no usage: cannot anchor
    log.add(Message.builder(Role.USER).content("shown only").uiOnly(true).build());
    ContextMeasurement once = ContextMeter.measureOnce(log, MODEL, COUNTER);
    ContextMeasurement meter = new ContextMeter(COUNTER).measure(log, MODEL);

    assertThat(once).isEqualTo(meter);
    assertThat(once.source()).isEqualTo(Source.ESTIMATE);
    assertThat(once.tokens()).isEqualTo(COUNTER.countMessages(log)).isPositive();
    assertThat(once.rejectedReason()).isEqualTo(meter.rejectedReason()).contains("no assistant");
    assertThat(ContextMeter.measureOnce(List.of(), MODEL, COUNTER))
        .isEqualTo(new ContextMeter(COUNTER).measure(List.of(), MODEL));
  }

  @Test
  void anchor_10plus800plus200_reachesLimit1000_whereTheTextEstimateDoesNot() {
    List<Message> log = anchoredConversation();
    ContextMeasurement m = ContextMeter.measureOnce(log, MODEL, COUNTER);
    long limit = 1000;
    assertThat(m.tokens()).isGreaterThanOrEqualTo(limit); // compaction fires
    assertThat(COUNTER.countMessages(log)).isLessThan(limit); // a text estimate would miss it
  }

  @Test
  void prefixEdited_fallsBackToEstimateWithReason() {
    List<Message> log = anchoredConversation();
    log.set(1, Message.user("Fix the failing test, please."));
    ContextMeasurement m = ContextMeter.measureOnce(log, MODEL, COUNTER);
    assertThat(m.source()).isEqualTo(Source.ESTIMATE);
    assertThat(m.anchorIndex()).isEqualTo(-1);
    assertThat(m.tokens()).isEqualTo(COUNTER.countMessages(log));
    assertThat(m.rejectedReason()).contains("prefix digest differs");
  }

  @Test
  void messageRemovedBeforeAnchor_fallsBackToEstimate() {
    List<Message> log = anchoredConversation();
    log.remove(0);
    ContextMeasurement m = ContextMeter.measureOnce(log, MODEL, COUNTER);
    assertThat(m.source()).isEqualTo(Source.ESTIMATE);
    assertThat(m.rejectedReason()).contains("reported for 2 stored messages, but 1 precede it");
  }

  @Test
  void modelChanged_fallsBackToEstimate() {
    ContextMeasurement m =
        ContextMeter.measureOnce(anchoredConversation(), "openai/gpt-4.1", COUNTER);
    assertThat(m.source()).isEqualTo(Source.ESTIMATE);
    assertThat(m.rejectedReason()).contains("model changed from \"openai/gpt-4o\"");
    assertThat(ContextMeter.measureOnce(anchoredConversation(), null, COUNTER).rejectedReason())
        .contains("model is unknown");
  }

  @Test
  void bareModelName_matchesProviderQualifiedName() {
    assertThat(ContextMeter.measureOnce(anchoredConversation(), "GPT-4o", COUNTER).source())
        .isEqualTo(Source.ANCHOR);
    assertThat(ContextMeter.sameModel("openai/gpt-4o", "azure/gpt-4o")).isFalse();
  }

  /** A response stamped the way older clients and imports did: a bare name plus the provider. */
  private static List<Message> bareStamped(String provider, String model) {
    List<Message> log = new ArrayList<>();
    log.add(Message.user("Fix the failing test."));
    Message r = response(log, "On it.", new Usage(900, 20, 0, 0, 0), model);
    MessageMetadata md = r.metadata();
    log.add(
        r.toBuilder()
            .metadata(new MessageMetadata(md.model(), provider, md.usage(), md.input(), md.extra()))
            .build());
    return log;
  }

  @Test
  void anchorsAreKeyedByTheQualifiedModel_neverReusedForAnotherProvider() {
    List<Message> anthropic = bareStamped("anthropic", "claude-sonnet-4");
    assertThat(ContextMeter.measureOnce(anthropic, "anthropic/claude-sonnet-4", COUNTER).source())
        .isEqualTo(Source.ANCHOR);
    ContextMeasurement other =
        ContextMeter.measureOnce(anthropic, "openrouter/claude-sonnet-4", COUNTER);
    assertThat(other.source()).isEqualTo(Source.ESTIMATE);
    assertThat(other.rejectedReason()).contains("anthropic/claude-sonnet-4");
    // OpenRouter names its models with a slash of their own.
    List<Message> openrouter = bareStamped("openrouter", "anthropic/claude-sonnet-4");
    assertThat(
            ContextMeter.measureOnce(openrouter, "openrouter/anthropic/claude-sonnet-4", COUNTER)
                .source())
        .isEqualTo(Source.ANCHOR);
    assertThat(ContextMeter.measureOnce(openrouter, "anthropic/claude-sonnet-4", COUNTER).source())
        .isEqualTo(Source.ESTIMATE);
    // A bare stamped name of unknown provider never matches a qualified current model.
    List<Message> unknown = new ArrayList<>();
    unknown.add(Message.user("hi"));
    unknown.add(response(unknown, "hello", new Usage(900, 5, 0, 0, 0), "claude-sonnet-4"));
    assertThat(ContextMeter.measureOnce(unknown, "openrouter/claude-sonnet-4", COUNTER).source())
        .isEqualTo(Source.ESTIMATE);
    assertThat(ContextMeter.measureOnce(unknown, "claude-sonnet-4", COUNTER).source())
        .isEqualTo(Source.ANCHOR);
  }

  @Test
  void zeroUsage_fallsBackToEstimate() {
    List<Message> log = new ArrayList<>();
    log.add(Message.user("hi"));
    log.add(response(log, "hello", new Usage(0, 5, 0, 0, 0), MODEL));
    ContextMeasurement m = ContextMeter.measureOnce(log, MODEL, COUNTER);
    assertThat(m.source()).isEqualTo(Source.ESTIMATE);
    assertThat(m.rejectedReason()).contains("no input tokens");
  }

  @Test
  void noAnchor_estimatesEverything() {
    List<Message> log = List.of(Message.user("hi"), Message.assistant("hello"));
    ContextMeasurement m = ContextMeter.measureOnce(log, MODEL, COUNTER);
    assertThat(m.source()).isEqualTo(Source.ESTIMATE);
    assertThat(m.tokens()).isEqualTo(COUNTER.countMessages(log));
    assertThat(m.rejectedReason()).contains("no assistant message with provider usage");
  }

  @Test
  void onlyTheNewestCandidateIsTried() {
    List<Message> log = anchoredConversation();
    log.add(Message.user("next"));
    log.add(response(log, "second answer", new Usage(1500, 5, 0, 0, 0), "openai/gpt-4.1"));
    ContextMeasurement m = ContextMeter.measureOnce(log, MODEL, COUNTER);
    assertThat(m.source()).isEqualTo(Source.ESTIMATE);
    assertThat(m.rejectedReason()).contains("message 4");
  }

  @Test
  void uiOnly_neverCounts_neitherAsGrowthNorAsAnchor() {
    List<Message> log = anchoredConversation();
    ContextMeasurement before = ContextMeter.measureOnce(log, MODEL, COUNTER);

    log.add(
        Message.builder(Role.SYSTEM).content("Compacted: saved 4k tokens").uiOnly(true).build());
    ContextMeasurement after = ContextMeter.measureOnce(log, MODEL, COUNTER);
    assertThat(after.tokens()).isEqualTo(before.tokens());
    assertThat(after.anchorIndex()).isEqualTo(2);

    // a uiOnly assistant message with usage is no anchor candidate
    Message uiResponse =
        response(log, "status", new Usage(99_999, 1, 0, 0, 0), MODEL).toBuilder()
            .uiOnly(true)
            .build();
    log.add(uiResponse);
    ContextMeasurement third = ContextMeter.measureOnce(log, MODEL, COUNTER);
    assertThat(third.anchorIndex()).isEqualTo(2);
    assertThat(third.tokens()).isEqualTo(before.tokens());
  }

  @Test
  void uiOnly_isLeftOutOfTheEstimateToo() {
    List<Message> log = new ArrayList<>(List.of(Message.user("hi")));
    long base = ContextMeter.measureOnce(log, MODEL, COUNTER).tokens();
    log.add(Message.builder(Role.SYSTEM).content("x".repeat(5000)).uiOnly(true).build());
    assertThat(ContextMeter.measureOnce(log, MODEL, COUNTER).tokens()).isEqualTo(base);
  }

  @Test
  void meter_incrementalMeasurements_agreeWithOneOffMeasurements_underRandomEdits() {
    long seed = 1234;
    Random rnd = new Random(seed);
    ContextMeter meter = new ContextMeter(COUNTER);
    List<Message> log = new ArrayList<>();
    for (int step = 0; step < 400; step++) {
      int action = rnd.nextInt(20);
      if (action == 0 && log.size() > 2) {
        log.set(rnd.nextInt(log.size()), Message.user("edited " + step)); // an edit
      } else if (action == 1 && log.size() > 2) {
        log.subList(rnd.nextInt(log.size()), log.size()).clear(); // a rollback
      } else if (action < 8) {
        log.add(response(log, "answer " + step, new Usage(100 + step, 10, step, 0, 0), MODEL));
      } else {
        log.add(Message.user("question " + step + " " + "word ".repeat(rnd.nextInt(20))));
      }
      assertThat(meter.measure(log, MODEL))
          .as("seed %d step %d", seed, step)
          .isEqualTo(ContextMeter.measureOnce(log, MODEL, COUNTER));
    }
  }

  @Test
  void meter_editNearCheckpointBoundary_restoresDigestState() {
    ContextMeter meter = new ContextMeter(COUNTER);
    List<Message> log = answeredQuestions(600);
    assertThat(meter.measure(log, MODEL).source()).isEqualTo(Source.ANCHOR);

    for (int edit : new int[] {512, 511, 256, 255, 0, 599}) {
      List<Message> edited = new ArrayList<>(log);
      edited.set(edit, Message.user("changed"));
      assertThat(meter.measure(edited, MODEL).source())
          .as("edit %d", edit)
          .isEqualTo(Source.ESTIMATE);
      assertThat(meter.measure(log, MODEL).source()).as("undo %d", edit).isEqualTo(Source.ANCHOR);
    }
  }

  @Test
  void meter_replacingTheLastMessageRepeatedly_staysExact() {
    ContextMeter meter = new ContextMeter(COUNTER);
    List<Message> log = answeredQuestions(300);
    log.add(Message.user("draft"));
    for (int k = 0; k < 5; k++) {
      log.set(log.size() - 1, Message.user("draft " + k));
      assertThat(meter.measure(log, MODEL))
          .isEqualTo(ContextMeter.measureOnce(log, MODEL, COUNTER));
      // now replace the anchor itself (the last-but-one): falls back to checkpoints
      List<Message> other = new ArrayList<>(log.subList(0, log.size() - 2));
      other.add(response(other, "b" + k, new Usage(6000, 1, 0, 0, 0), MODEL));
      assertThat(meter.measure(other, MODEL))
          .isEqualTo(ContextMeter.measureOnce(other, MODEL, COUNTER));
      assertThat(meter.measure(log, MODEL))
          .isEqualTo(ContextMeter.measureOnce(log, MODEL, COUNTER));
    }
  }

  @Test
  void meter_equalButNotIdenticalMessages_keepTheAnchor() {
    List<Message> log = anchoredConversation();
    ContextMeter meter = new ContextMeter(COUNTER);
    ContextMeasurement first = meter.measure(log, MODEL);
    List<Message> copies = log.stream().map(m -> m.toBuilder().build()).toList();
    assertThat(meter.measure(copies, MODEL)).isEqualTo(first);
  }

  @Test
  void meter_afterOneMoreMessage_countsOnlyTheNewMessage() {
    List<String> encoded = new ArrayList<>();
    TokenCounter counting = TokenCountersTest.countingCounter(encoded);
    ContextMeter meter = new ContextMeter(counting);
    List<Message> log = new ArrayList<>();
    Random rnd = new Random(3);
    for (int i = 0; i < 2000; i++) {
      log.add(TokenCountersTest.randomMessage(rnd, i));
    }
    log.add(response(log, "anchored answer", new Usage(40_000, 100, 0, 0, 0), MODEL));
    meter.measure(log, MODEL);
    encoded.clear();
    log.add(Message.user("and now?"));
    ContextMeasurement m = meter.measure(log, MODEL);
    assertThat(encoded).containsExactly("and now?");
    assertThat(m.source()).isEqualTo(Source.ANCHOR);
  }
}
