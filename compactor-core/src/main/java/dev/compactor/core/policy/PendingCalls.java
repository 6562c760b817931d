package dev.compactor.core.policy;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Finds the tool calls of the last turn that still await their results. */
public final class PendingCalls {
  private PendingCalls() {}

  /**
   * Call ids of the newest assistant message with tool calls whose results have not all arrived,
   * provided nothing but tool results (or uiOnly messages) follows it; else empty.
   */
  public static Set<String> of(List<Message> messages) {
    Set<String> open = new LinkedHashSet<>();
    for (int i = messages.size() - 1; i >= 0; i--) {
      Message m = messages.get(i);
      if (m.uiOnly() || m.role() == Role.TOOL) {
        continue;
      }
      if (m.role() == Role.ASSISTANT && m.hasToolCalls()) {
        for (ToolCall c : m.toolCalls()) {
          open.add(c.id());
        }
        for (int j = i + 1; j < messages.size(); j++) {
          Message r = messages.get(j);
          if (r.role() == Role.TOOL && r.toolCallId() != null) {
            open.remove(r.toolCallId());
          }
        }
      }
      return open;
    }
    return open;
  }

  /** Whether the last turn has calls without results. */
  public static boolean any(List<Message> messages) {
    return !of(messages).isEmpty();
  }
}
