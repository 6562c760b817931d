package dev.compactor.core.message;

import static org.assertj.core.api.Assertions.assertThat;

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
    PrefixDigester md = new PrefixDigester();
    for (int i = 0; i <= msgs.size(); i++) {
      assertThat(md.digest())
          .as("seed %d prefix %d", seed, i)
          .isEqualTo(Digests.prefix(msgs.subList(0, i)));
      if (i < msgs.size()) {
        md.add(msgs.get(i));
      }
    }
  }

  @Test
  void prefixDigest_isPinned_soStoredFingerprintsStayValid() {
    // Fingerprints are stored with imported and recorded messages: the byte layout must not move.
    List<Message> l =
        List.of(
            Message.system("You are terse."),
            Message.user("héllo 世界"),
            Message.builder(Role.ASSISTANT)
                .content("")
                .reasoning(List.of(new ReasoningBlock("thinking", "plan", "sig")))
                .toolCalls(List.of(new ToolCall("c1", "shell", "{\"cmd\":\"ls\"}")))
                .build(),
            Message.toolResult("c1", "a.txt\nb.txt"),
            Message.builder(Role.SYSTEM).content("status").uiOnly(true).build());
    assertThat(Digests.prefix(l))
        .isEqualTo("6b95e0d1ba06bd49fef1b74be3d657b5f3f48c789c5141b30af4862386606767");
    assertThat(new PrefixDigester().digest())
        .isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  }

  @Test
  void copy_forksAnIndependentState() {
    PrefixDigester a = new PrefixDigester().add(Message.user("x"));
    PrefixDigester b = a.copy().add(Message.user("y"));
    assertThat(a.digest()).isEqualTo(Digests.prefix(List.of(Message.user("x"))));
    assertThat(b.digest()).isEqualTo(Digests.prefix(List.of(Message.user("x"), Message.user("y"))));
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
