package dev.compactor.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolTurnsTest {
  private static final Message CALLS =
      Message.assistant("", List.of(new ToolCall("a", "ls", "{}"), new ToolCall("b", "cat", "{}")));

  @Test
  void aTurnWithAMissingResult_isOpenWithAllItsCalls() {
    assertThat(
            ToolTurns.openLastTurn(
                List.of(Message.user("go"), CALLS, Message.toolResult("a", "x"))))
        .containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void aCompleteTurn_orNoCalls_isNotOpen() {
    assertThat(
            ToolTurns.openLastTurn(
                List.of(CALLS, Message.toolResult("a", "x"), Message.toolResult("b", "y"))))
        .isEmpty();
    assertThat(ToolTurns.openLastTurn(List.of(Message.user("hi"), Message.assistant("hello"))))
        .isEmpty();
  }

  @Test
  void onlyTheLastCallingTurnCounts() {
    Message older = Message.assistant("", List.of(new ToolCall("old", "ls", "{}")));
    assertThat(ToolTurns.openLastTurn(List.of(older, CALLS, Message.toolResult("a", "x"))))
        .containsExactlyInAnyOrder("a", "b");
    assertThat(
            ToolTurns.openLastTurn(
                List.of(older, CALLS, Message.toolResult("a", "x"), Message.toolResult("b", "y"))))
        .isEmpty();
  }
}
