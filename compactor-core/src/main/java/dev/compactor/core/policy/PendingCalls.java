package dev.compactor.core.policy;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Finds the tool calls that still await their results. */
public final class PendingCalls {
  private PendingCalls() {}

  /**
   * Ids of every call an assistant message made that no later tool result answers, oldest first,
   * whatever messages (user, system, reminders, status lines) come between a call and its result.
   * uiOnly messages are never sent to a provider: their calls do not count.
   */
  public static Set<String> of(List<Message> messages) {
    return of(Set.of(), messages);
  }

  /**
   * As {@link #of(List)} for a conversation that continues one whose calls {@code open} awaited
   * their results (its {@link #of(List)}) with {@code later}: the same set as {@link #of(List)} of
   * the whole, from the later messages alone.
   */
  public static Set<String> of(Set<String> earlier, List<Message> later) {
    Set<String> open = new LinkedHashSet<>(earlier);
    for (Message m : later) {
      if (m.uiOnly()) {
        continue;
      }
      if (m.role() == Role.TOOL) {
        if (m.toolCallId() != null) {
          open.remove(m.toolCallId());
        }
      } else if (m.role() == Role.ASSISTANT) {
        for (ToolCall c : m.toolCalls()) {
          open.add(c.id());
        }
      }
    }
    return open;
  }

  /** Whether some call has no result yet. */
  public static boolean any(List<Message> messages) {
    return !of(messages).isEmpty();
  }
}
