package dev.compactor.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.replay.cost.CacheModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReplayerTest {
  private static final TokenCounter COUNTER = TokenCounters.o200k();

  private static RecordedConversation generated(long window, int maxOutput, int turns) {
    return generated(window, maxOutput, ConversationGenerator.Options.agentSession(turns));
  }

  private static RecordedConversation generated(
      long window, int maxOutput, ConversationGenerator.Options options) {
    List<Message> messages = ConversationGenerator.generate(7, options);
    return RecordedConversation.prepare(
        "generated",
        new ImportedConversation("seed-7", messages, Map.of(), List.of()),
        ReplayOptions.defaults().withWindow(window).withMaxOutput(maxOutput));
  }

  /**
   * 150 turns in a 16,000-token window, with no tool output larger than the budget: the policy
   * never shrinks the newest step (a known limitation that the overflow recovery covers), so such
   * an output would stay over the window.
   */
  private static RecordedConversation smallWindowWithoutHugeOutputs() {
    return generated(
        16_000,
        2_000,
        new ConversationGenerator.Options(150, 0.15, 0.3, 0.05, 0, false, false, 12));
  }

  private static StrategyRun replay(RecordedConversation c, String strategy) {
    return new Replayer(COUNTER).replay(c, ReplayStrategies.global().get(strategy));
  }

  @Test
  void none_oneCallPerAssistantMessage_wholeConversationEveryCall_recallOne() {
    RecordedConversation c = generated(1_000_000, 8_000, 60);
    Metrics m = replay(c, "none").metrics();
    long assistants = c.messages().stream().filter(x -> x.role() == Role.ASSISTANT).count();
    assertThat(m.calls()).isEqualTo(assistants).isEqualTo(c.callCount());
    assertThat(m.compactions()).isZero();
    assertThat(m.overWindowCalls()).isZero();
    assertThat(m.invalidViews()).isZero();
    assertThat(m.neededFacts()).isPositive();
    assertThat(m.recall()).isEqualTo(1.0);
    // The last call sends everything before the last assistant message.
    long[] series = replay(c, "none").inputPerCall();
    int last = c.callIndex(c.callCount() - 1);
    assertThat(series[series.length - 1])
        .isEqualTo(COUNTER.countMessages(c.messages().subList(0, last)));
  }

  @Test
  void none_cachesEverythingButWhatWasAddedSinceTheLastCall() {
    RecordedConversation c = generated(1_000_000, 8_000, 30);
    Metrics m = replay(c, "none").metrics();
    // Uncached input is what each call adds: the whole conversation before the last call, once.
    int last = c.callIndex(c.callCount() - 1);
    long all = COUNTER.countMessages(c.messages().subList(0, last));
    long priming = COUNTER.overhead().replyPriming();
    assertThat(m.inputTokens() - m.cachedTokens()).isEqualTo(all + priming * (m.calls() - 1));
    assertThat(m.costUsd(CacheModel.ANTHROPIC)).isGreaterThan(m.costUsd(CacheModel.OPENAI));
  }

  @Test
  void auto_smallWindow_staysInsideTheWindowWithValidViews() {
    RecordedConversation c = smallWindowWithoutHugeOutputs();
    Metrics none = replay(c, "none").metrics();
    Metrics auto = replay(c, "auto").metrics();
    assertThat(none.overWindowCalls()).isPositive();
    assertThat(auto.overWindowCalls()).isZero();
    assertThat(auto.invalidViews()).isZero();
    assertThat(auto.compactions()).isPositive();
    assertThat(auto.inputTokens()).isLessThan(none.inputTokens());
    assertThat(auto.peakTokens()).isLessThanOrEqualTo(16_000 - 2_000);
    assertThat(auto.recall()).isBetween(0.5, 1.0);
  }

  @Test
  void summarize_countsEverySummaryCall() {
    RecordedConversation c = generated(16_000, 2_000, 150);
    Metrics m = replay(c, "summarize").metrics();
    assertThat(m.summaryCalls()).isPositive();
    assertThat(m.summaryInputTokens()).isGreaterThan(m.summaryOutputTokens());
    assertThat(m.summaryCost()).isPositive();
    assertThat(m.invalidViews()).isZero();
  }

  @Test
  void replay_aStrategyThatDropsEverything_losesEveryFactAndIsInvalidWhenItOrphansResults() {
    Message user = Message.user("Please fix src/app/Billing.java where InvoiceError is thrown.");
    Message a1 =
        Message.assistant(
            "", List.of(new ToolCall("c1", "read", "{\"path\":\"src/app/Billing.java\"}")));
    Message r1 = Message.toolResult("c1", "class Billing { void charge() throws InvoiceError {} }");
    Message a2 =
        Message.assistant("The InvoiceError comes from Billing.charge in src/app/Billing.java.");
    RecordedConversation c =
        RecordedConversation.prepare(
            "inline",
            new ImportedConversation("x", List.of(user, a1, r1, a2), Map.of(), List.of()),
            ReplayOptions.defaults().withWindow(10_000L).withMaxOutput(1_000));
    ReplayStrategy forget =
        new ReplayStrategy() {
          @Override
          public String name() {
            return "forget";
          }

          @Override
          public String description() {
            return "keeps only the last message";
          }

          @Override
          public ReplaySession start(ReplaySetup setup) {
            List<Message> all = new ArrayList<>();
            return new ReplaySession() {
              @Override
              public void append(Message recorded) {
                all.add(recorded);
              }

              @Override
              public void afterTurn() {}

              @Override
              public List<Message> view() {
                return all.subList(all.size() - 1, all.size());
              }
            };
          }
        };
    Metrics m = new Replayer(COUNTER).replay(c, forget).metrics();
    assertThat(c.needed(1)).contains("src/app/Billing.java", "InvoiceError");
    assertThat(m.calls()).isEqualTo(2);
    assertThat(m.recalledFacts()).isLessThan(m.neededFacts());
    assertThat(m.invalidViews()).isEqualTo(1); // the second view is a result without its call
  }

  @Test
  void autoRecall_hasAutosViews_recoversMaskedFacts_andPaysForTheRoundTrips() {
    RecordedConversation c = smallWindowWithoutHugeOutputs();
    Metrics auto = replay(c, "auto").metrics();
    Metrics recall = replay(c, "auto-recall").metrics();
    assertThat(auto.recallCalls()).isZero();
    assertThat(recall.compactions()).isEqualTo(auto.compactions());
    assertThat(recall.recalledFacts()).isEqualTo(auto.recalledFacts() + recall.recoveredFacts());
    assertThat(recall.invalidViews()).isZero();
    if (recall.recoveredFacts() > 0) {
      assertThat(recall.recallCalls()).isPositive();
      assertThat(recall.recallTokens()).isPositive();
      // a round trip sends its view again (cached) plus the recalled outputs (written)
      assertThat(recall.inputTokens() - recall.cachedTokens())
          .isGreaterThanOrEqualTo(auto.inputTokens() - auto.cachedTokens());
      assertThat(recall.costUsd(CacheModel.ANTHROPIC))
          .isGreaterThan(auto.costUsd(CacheModel.ANTHROPIC));
    } else {
      assertThat(recall.recallCalls()).isZero();
    }
  }

  @Test
  void auto_reportsItsCostPlans_predictedAndRealised_otherStrategiesNone() {
    RecordedConversation c = smallWindowWithoutHugeOutputs();
    Metrics auto = replay(c, "auto").metrics();
    Metrics fixed = replay(c, "auto-fixed").metrics();
    assertThat(auto.plannedCompactions()).isPositive().isLessThanOrEqualTo(auto.compactions());
    assertThat(auto.predictedSaving()).isPositive();
    // realised with the calls actually made after each plan: not the prediction itself
    assertThat(auto.realisedSaving()).isNotEqualTo(auto.predictedSaving());
    assertThat(fixed.plannedCompactions()).isZero();
    assertThat(fixed.realisedSaving()).isZero();
    assertThat(auto.plus(fixed).plannedCompactions()).isEqualTo(auto.plannedCompactions());
  }
}
