package dev.compactor.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link PendingCalls}: a conversation read whole, and read on from where an earlier read ended.
 */
class PendingCallsTest {
  @Test
  void callsAwaitTheirResultsWhateverComesBetween() {
    List<Message> m =
        List.of(
            Message.user("go"),
            Message.assistant("", List.of(new ToolCall("a", "ls", "{}"), call("b"))),
            Message.toolResult("b", "ok"),
            Message.user("and?"),
            Message.assistant("", List.of(call("c"))));
    assertThat(PendingCalls.of(m)).containsExactly("a", "c");
    assertThat(PendingCalls.of(Set.of("a", "c"), List.of(Message.toolResult("a", "x"))))
        .containsExactly("c");
  }

  @Test
  void readingOnFromAnEarlierReadIsReadingTheWhole() {
    Random rnd = new Random(7);
    for (int run = 0; run < 500; run++) {
      List<Message> conversation = new ArrayList<>();
      List<String> open = new ArrayList<>();
      int n = 1 + rnd.nextInt(40);
      for (int i = 0; i < n; i++) {
        int kind = rnd.nextInt(4);
        if (kind == 0) {
          conversation.add(Message.user("u" + i));
        } else if (kind == 1) {
          List<ToolCall> calls = new ArrayList<>();
          for (int c = rnd.nextInt(3); c > 0; c--) {
            String id = "c" + i + "-" + c;
            calls.add(call(id));
            open.add(id);
          }
          conversation.add(Message.assistant("a" + i, calls));
        } else if (!open.isEmpty()) {
          // a result, not always for the oldest call; sometimes for one already answered
          String id = open.get(rnd.nextInt(open.size()));
          if (rnd.nextInt(5) > 0) {
            open.remove(id);
          }
          conversation.add(Message.toolResult(id, "r" + i));
        }
      }
      int cut = rnd.nextInt(conversation.size() + 1);
      Set<String> earlier = PendingCalls.of(conversation.subList(0, cut));
      assertThat(PendingCalls.of(earlier, conversation.subList(cut, conversation.size())))
          .as("run %d, read on from message %d", run, cut)
          .containsExactlyElementsOf(PendingCalls.of(conversation));
    }
  }

  private static ToolCall call(String id) {
    return new ToolCall(id, "run", "{}");
  }
}
