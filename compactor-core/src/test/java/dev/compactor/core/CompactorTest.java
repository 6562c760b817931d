package dev.compactor.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.budget.BudgetInputs;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.view.ViewValidator;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CompactorTest {
  private static final Map<String, String> NO_ENV = Map.of();

  private static List<Message> session(int turns) {
    return ConversationGenerator.generate(7, ConversationGenerator.Options.agentSession(turns));
  }

  @Test
  void build_resolvesTheBudgetLikeTheCommandLine() {
    Compactor c = Compactor.forModel("openai/gpt-4o").budget("0.5").environment(NO_ENV).build();
    assertThat(c.budget().window()).isEqualTo(128_000);
    assertThat(c.budget().tokens()).isEqualTo(64_000);
    assertThat(c.budget().source()).isEqualTo(Compactor.BUDGET_SOURCE);

    Compactor d = Compactor.forModel("openai/gpt-4o").environment(NO_ENV).build();
    assertThat(d.budget().source()).isEqualTo("default");
    // min(0.9 × 128,000, 128,000 − 16,384 output − 1,000 headroom, 256k)
    assertThat(d.budget().tokens()).isEqualTo(110_616);
  }

  @Test
  void build_environmentLayerComesAfterTheExplicitBudget() {
    Map<String, String> env = Map.of("COMPACTOR_CONTEXT_BUDGET", "30000");
    assertThat(Compactor.forModel("openai/gpt-4o").environment(env).build().budget().source())
        .isEqualTo("COMPACTOR_CONTEXT_BUDGET");
    assertThat(Compactor.forModel("openai/gpt-4o").environment(env).build().budget().tokens())
        .isEqualTo(30_000);
    assertThat(
            Compactor.forModel("openai/gpt-4o")
                .environment(env)
                .budget("0.25")
                .build()
                .budget()
                .tokens())
        .isEqualTo(32_000);
  }

  @Test
  void build_contextWindowWinsOverTheCatalogAndTheEnvironment() {
    Compactor c =
        Compactor.forModel("local/qwen")
            .contextWindow(32_768)
            .maxOutputTokens(4_096)
            .environment(Map.of("COMPACTOR_CONTEXT_LENGTH", "8192"))
            .build();
    assertThat(c.budget().window()).isEqualTo(32_768);
    assertThat(c.budget().windowSource()).isEqualTo(Compactor.WINDOW_SOURCE);
    assertThat(c.budget().tokens()).isEqualTo(27_672);
  }

  @Test
  void build_invalidBudget_namesValueAndSource() {
    assertThatThrownBy(
            () -> Compactor.forModel("openai/gpt-4o").budget("0.0").environment(NO_ENV).build())
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("\"0.0\"")
        .hasMessageContaining(Compactor.BUDGET_SOURCE);
    assertThatThrownBy(
            () ->
                Compactor.forModel("openai/gpt-4o")
                    .environment(Map.of("COMPACTOR_CONTEXT_BUDGET", "abc"))
                    .build())
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("COMPACTOR_CONTEXT_BUDGET");
  }

  @Test
  void build_unknownStrategy_fails() {
    assertThatThrownBy(() -> Compactor.forModel("openai/gpt-4o").strategy("shrink").build())
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("shrink");
  }

  @Test
  void build_budgetInputs_supplyTheConfiguredLayers() {
    BudgetInputs inputs =
        BudgetInputs.builder(ModelCatalog.builtIn().lookup("openai/gpt-4o"))
            .project(BudgetSetting.of("50000", "[context] budget in ./compactor.toml"))
            .build();
    Compactor c = Compactor.forModel("openai/gpt-4o").budgetInputs(inputs).build();
    assertThat(c.budget().tokens()).isEqualTo(50_000);
    assertThat(c.budget().source()).isEqualTo("[context] budget in ./compactor.toml");
  }

  @Test
  void compact_generatedAgentSession_makesASmallerValidViewAndRecoversEveryOriginal() {
    List<Message> messages = session(150);
    Compactor c = Compactor.forModel("openai/gpt-4o").budget("0.25").environment(NO_ENV).build();
    long before = c.counter().countMessages(messages);
    assertThat(before).isGreaterThan(c.budget().tokens());

    Compactor.Result r = c.compact(messages);

    assertThat(r.outcome()).isInstanceOf(CompactionOutcome.Compacted.class);
    AppliedCompaction report = ((CompactionOutcome.Compacted) r.outcome()).report();
    assertThat(report.tokensAfter()).isLessThan(report.tokensBefore());
    assertThat(c.counter().countMessages(r.messages())).isLessThan(c.budget().tokens());
    assertThat(new ViewValidator().validate(r.messages())).isEmpty();
    assertThat(r.messages()).noneMatch(Message::uiOnly);
    assertRecoverable(messages, r.messages(), r::recover);
    // The input is the master log, unchanged.
    assertThat(r.conversation().master().messages()).startsWith(messages.toArray(Message[]::new));
  }

  @Test
  void compact_belowTheBudget_isNotNeededAndReturnsTheInput() {
    List<Message> messages = session(5);
    Compactor c = Compactor.forModel("openai/gpt-4o").environment(NO_ENV).build();
    Compactor.Result r = c.compact(messages);
    assertThat(r.outcome()).isInstanceOf(CompactionOutcome.NotNeeded.class);
    assertThat(r.compacted()).isFalse();
    assertThat(r.messages()).isEqualTo(messages);
  }

  @Test
  void compact_namedStrategy_runsIt() {
    List<Message> messages = session(150);
    Compactor c =
        Compactor.forModel("openai/gpt-4o")
            .budget("0.25")
            .environment(NO_ENV)
            .strategy(SummarizeProvider.NAME)
            .build();
    Compactor.Result r = c.compact(messages);
    assertThat(r.outcome()).isInstanceOf(CompactionOutcome.Compacted.class);
    assertThat(((CompactionOutcome.Compacted) r.outcome()).report().strategy())
        .isEqualTo(SummarizeProvider.NAME);
    assertThat(r.messages()).anyMatch(SummarizeProvider::isCheckpoint);
    assertThat(new ViewValidator().validate(r.messages())).isEmpty();
    assertRecoverable(messages, r.messages(), r::recover);
  }

  @Test
  void session_liveLoop_compactsAfterTurnsAndKeepsEveryViewValid() {
    List<Message> messages = session(150);
    List<AppliedCompaction> journal = new ArrayList<>();
    SettableClock clock = new SettableClock(Instant.EPOCH); // set to each turn's time
    Compactor c =
        Compactor.forModel("openai/gpt-4o")
            .budget("0.25")
            .environment(NO_ENV)
            .listener(journal::add)
            .clock(clock)
            .build();
    Compactor.Session s = c.session();
    int compacted = 0;
    for (Message m : messages) {
      clock.now = m.timestamp();
      s.append(m);
      if (m.role() != dev.compactor.core.message.Role.TOOL) {
        CompactionOutcome o = s.afterTurn();
        if (o instanceof CompactionOutcome.Compacted) {
          compacted++;
        }
        assertThat(new ViewValidator().validate(s.messages())).isEmpty();
      }
    }
    assertThat(compacted).isPositive();
    assertThat(journal).hasSize(compacted);
    assertThat(s.tokens()).isLessThanOrEqualTo(c.budget().tokens());
    assertThat(s.conversation().views()).hasSize(compacted + 1);
    assertRecoverable(messages, s.messages(), s::recover);
  }

  @Test
  void recover_unknownId_fails() {
    Compactor.Session s = Compactor.forModel("openai/gpt-4o").environment(NO_ENV).build().session();
    s.append(Message.user("hello"));
    assertThatThrownBy(() -> s.recover(MessageId.of("nope")))
        .isInstanceOf(CompactorException.class);
  }

  /** Every message of the view that is not an input is a synthesized entry covering inputs. */
  private static void assertRecoverable(
      List<Message> input,
      List<Message> view,
      java.util.function.Function<MessageId, List<Message>> recover) {
    Set<MessageId> inputs = new HashSet<>();
    input.forEach(m -> inputs.add(m.id()));
    int synthesized = 0;
    for (Message m : view) {
      if (inputs.contains(m.id()) || m.uiOnly() || m.id().value().startsWith("reminder")) {
        continue;
      }
      List<Message> originals = recover.apply(m.id());
      if (originals.stream().allMatch(o -> inputs.contains(o.id()))) {
        synthesized++;
        assertThat(input).containsAll(originals);
        assertThat(originals).isNotEmpty();
      }
    }
    assertThat(synthesized).isPositive();
  }
}
