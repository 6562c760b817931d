package dev.compactor.bench.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.replay.Metrics;
import dev.compactor.replay.RecordedConversation;
import dev.compactor.replay.ReplayOptions;
import dev.compactor.replay.ReplayStrategies;
import dev.compactor.replay.Replayer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TokenWindowStrategyTest {
  private static RecordedConversation generated() {
    List<Message> messages =
        ConversationGenerator.generate(
            11, new ConversationGenerator.Options(120, 0.2, 0.3, 0.05, 0, false, false, 12));
    return RecordedConversation.prepare(
        "generated",
        new ImportedConversation("seed-11", messages, Map.of(), List.of()),
        ReplayOptions.defaults().withWindow(12_000L).withMaxOutput(2_000));
  }

  @Test
  void discoveredByName_withThePeersOfTheIssueTable() {
    assertThat(ReplayStrategies.global().names())
        .contains("window", "peer-mask-every-turn", "peer-mask-to-70", "peer-mask-batched", "auto");
  }

  @Test
  void window_keepsEveryCallWithinTheBudget_evictingWholeMessages() {
    RecordedConversation c = generated();
    Metrics m =
        new Replayer(TokenCounters.o200k())
            .replay(c, ReplayStrategies.global().get("window"))
            .metrics();
    assertThat(m.peakTokens()).isLessThanOrEqualTo(c.budget());
    assertThat(m.overWindowCalls()).isZero();
    assertThat(m.compactions()).isPositive();
    assertThat(m.invalidViews()).isZero();
    assertThat(m.recall()).isLessThan(1.0);
  }

  @Test
  void peers_replayWithValidViews() {
    RecordedConversation c = generated();
    for (String name : List.of("peer-mask-every-turn", "peer-mask-to-70", "peer-mask-batched")) {
      Metrics m =
          new Replayer(TokenCounters.o200k())
              .replay(c, ReplayStrategies.global().get(name))
              .metrics();
      assertThat(m.invalidViews()).as(name).isZero();
      assertThat(m.compactions()).as(name).isPositive();
    }
  }
}
