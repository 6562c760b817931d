package dev.compactor.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PrefixDigesterTest {

  @Test
  void incrementalDigest_equalsDigestsPrefix_forEveryPrefix() {
    long seed = 42;
    Random rnd = new Random(seed);
    List<Message> msgs = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      msgs.add(randomRichMessage(rnd, i));
    }
    MessageDigest md = PrefixDigester.start();
    for (int i = 0; i <= msgs.size(); i++) {
      assertThat(PrefixDigester.peek(md))
          .as("seed %d prefix %d", seed, i)
          .isEqualTo(Digests.prefix(msgs.subList(0, i)));
      if (i < msgs.size()) {
        PrefixDigester.add(md, msgs.get(i));
      }
    }
  }

  static Message randomRichMessage(Random rnd, int i) {
    Role role = Role.values()[rnd.nextInt(4)];
    Message.Builder b = Message.builder(role).content("c" + i + "é" + rnd.nextInt());
    if (role == Role.ASSISTANT && rnd.nextBoolean()) {
      b.reasoning(List.of(new ReasoningBlock("thinking", "r" + rnd.nextInt(), null)));
      b.toolCalls(List.of(new ToolCall("call" + i, "tool" + rnd.nextInt(3), "{\"a\":1}")));
    }
    if (role == Role.TOOL) {
      b.toolCallId("call" + (i - 1));
    }
    b.uiOnly(rnd.nextInt(10) == 0);
    return b.build();
  }
}
