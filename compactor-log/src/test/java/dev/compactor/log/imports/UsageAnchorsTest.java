package dev.compactor.log.imports;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UsageAnchorsTest {
  @Test
  void incrementalPrefixDigest_equalsDigestsPrefix_atEveryLength() {
    long seed = 20260211L;
    Random rnd = new Random(seed);
    List<Message> messages = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      Role role = Role.values()[rnd.nextInt(4)];
      Message.Builder b = Message.builder(role).id("m" + i).content("text é " + rnd.nextInt());
      if (role == Role.ASSISTANT) {
        b.reasoning(List.of(new ReasoningBlock("thinking", "r" + i, "sig")));
        b.toolCalls(List.of(new ToolCall("c" + i, "tool", "{\"n\":" + i + "}")));
      }
      if (role == Role.TOOL) {
        b.toolCallId("c" + (i - 1));
      }
      b.uiOnly(rnd.nextInt(5) == 0);
      messages.add(b.build());
    }
    UsageAnchors.PrefixDigest d = new UsageAnchors.PrefixDigest();
    for (int i = 0; i <= messages.size(); i++) {
      assertThat(d.current())
          .as("prefix of %d (seed %d)", i, seed)
          .isEqualTo(Digests.prefix(messages.subList(0, i)));
      if (i < messages.size()) {
        d.add(messages.get(i));
      }
    }
  }

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
