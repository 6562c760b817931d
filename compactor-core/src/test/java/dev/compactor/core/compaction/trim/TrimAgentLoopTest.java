package dev.compactor.core.compaction.trim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.ViewValidator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An autonomous agent loop: one user request, then many steps. */
class TrimAgentLoopTest {

  @Test
  void oneRequestManySteps_oldOutputsAreTrimmed_newestUserAndFinalStepKept() {
    Conv c = new Conv().system("You are an agent.").user("Fix the failing build.");
    for (int i = 0; i < 30; i++) {
      c.tool("shell", "{\"cmd\":\"step " + i + "\"}", Conv.lines("build output line " + i, 300));
    }
    List<Message> messages = c.build();
    CompressionConfig cfg =
        CompressionConfig.builder().limit(20_000).counter(TokenCounters.cl100k()).build();
    CompactionResult r = new TrimProvider().compress(messages, cfg);

    assertThat(TokenCounters.cl100k().countMessages(r.messages()))
        .isLessThan(TokenCounters.cl100k().countMessages(messages) / 2);
    assertThat(new ViewValidator().validate(r.messages())).isEmpty();
    Message user = messages.get(1);
    assertThat(r.messages()).contains(user);
    // The final step (last call and its result) is verbatim.
    assertThat(r.messages().subList(r.messages().size() - 2, r.messages().size()))
        .isEqualTo(messages.subList(messages.size() - 2, messages.size()));
    assertThat(r.messages().stream().filter(m -> m.role() == Role.TOOL).findFirst().orElseThrow())
        .isNotIn(messages);
  }
}
