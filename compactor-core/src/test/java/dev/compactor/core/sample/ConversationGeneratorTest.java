package dev.compactor.core.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.view.ViewValidator;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConversationGeneratorTest {

  @Test
  void generatedConversations_areValid_forManySeeds() {
    ViewValidator v = new ViewValidator();
    for (long seed = 0; seed < 300; seed++) {
      ConversationGenerator.Options o =
          ConversationGenerator.Options.stress(1 + (int) (seed % 40))
              .withPendingLastCall(seed % 3 == 0);
      List<Message> m = ConversationGenerator.generate(seed, o);
      assertThat(v.validate(m)).as("seed %d", seed).isEmpty();
    }
  }

  @Test
  void sameSeed_sameConversation() {
    var o = ConversationGenerator.Options.agentSession(30);
    assertThat(ConversationGenerator.generate(7, o))
        .isEqualTo(ConversationGenerator.generate(7, o));
    assertThat(ConversationGenerator.generate(7, o))
        .isNotEqualTo(ConversationGenerator.generate(8, o));
  }

  @Test
  void pendingLastCall_endsWithUnansweredCalls() {
    var m =
        ConversationGenerator.generate(
            3, ConversationGenerator.Options.agentSession(10).withPendingLastCall(true));
    Message last = m.get(m.size() - 1);
    assertThat(last.role()).isEqualTo(Role.ASSISTANT);
    assertThat(last.hasToolCalls()).isTrue();
  }
}
