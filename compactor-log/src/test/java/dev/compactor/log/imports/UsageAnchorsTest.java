package dev.compactor.log.imports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UsageAnchorsTest {
  @Test
  void anchors_skipMessagesWithoutModelOrWithZeroInput_orRejectedByThePredicate() {
    MessageMetadata ok = new MessageMetadata("m", null, new Usage(1, 1, 0, 0, 0), null, Map.of());
    List<Message> in =
        List.of(
            Message.user("q"),
            Message.builder(Role.ASSISTANT).id("a1").metadata(ok).build(),
            Message.builder(Role.ASSISTANT).id("a2").metadata(ok.withModel(null)).build(),
            Message.builder(Role.ASSISTANT)
                .id("a3")
                .metadata(ok.withUsage(new Usage(0, 5, 0, 0, 0)))
                .build(),
            Message.builder(Role.ASSISTANT).id("a4").metadata(ok).build());

    List<Message> out = UsageAnchors.apply(in, m -> !m.id().value().equals("a4"));

    assertThat(out.get(1).metadata().input()).isNotNull();
    assertThat(out.get(2).metadata().input()).isNull();
    assertThat(out.get(3).metadata().input()).isNull();
    assertThat(out.get(4).metadata().input()).isNull();
  }
}
