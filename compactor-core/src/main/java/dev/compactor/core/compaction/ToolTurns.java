package dev.compactor.core.compaction;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Tool-call turns of a view, for strategies that must leave the turn in progress alone (the agent
 * is waiting for its results, so those calls and results are not theirs to rewrite).
 */
public final class ToolTurns {
  private ToolTurns() {}

  /**
   * The call ids of the last assistant message that made tool calls, when some of them have no
   * result yet after it; empty when that turn is complete or there is none. uiOnly messages are
   * never sent to a provider and do not count.
   */
  public static Set<String> openLastTurn(List<Message> messages) {
    Set<String> answered = new HashSet<>();
    for (int i = messages.size() - 1; i >= 0; i--) {
      Message m = messages.get(i);
      if (m.uiOnly()) {
        continue;
      }
      if (m.role() == Role.TOOL && m.toolCallId() != null) {
        answered.add(m.toolCallId());
      } else if (m.role() == Role.ASSISTANT && m.hasToolCalls()) {
        Set<String> calls = new HashSet<>();
        for (ToolCall c : m.toolCalls()) {
          calls.add(c.id());
        }
        return answered.containsAll(calls) ? Set.of() : calls;
      }
    }
    return Set.of();
  }
}
