package dev.compactor.core.policy;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.List;

/**
 * What the built-in strategies keep verbatim in a view, measured: the head (leading system messages
 * widened to {@code keepHead}), pinned messages, the final step (the last visible message that is
 * not a tool result, with everything after it — a pending tool call included) and, optionally, the
 * newest user request. Used to say why a compaction cannot reach a budget.
 */
final class ProtectedPart {
  private ProtectedPart() {}

  /**
   * Tokens of the protected messages of {@code messages} (uiOnly messages excluded), counted as a
   * view of their own.
   *
   * @param newestUser whether the newest user message counts as protected (trim does; summarize
   *     keeps it only when it is in the kept tail)
   */
  static long tokens(
      List<Message> messages, int keepHead, boolean newestUser, TokenCounter counter) {
    int n = messages.size();
    int lead = 0;
    while (lead < n && messages.get(lead).role() == Role.SYSTEM) {
      lead++;
    }
    int head = Math.max(lead, Math.min(keepHead, n));
    int finalStart = n;
    int lastUser = -1;
    for (int i = n - 1; i >= 0; i--) {
      Message m = messages.get(i);
      if (m.uiOnly()) {
        continue;
      }
      if (finalStart == n && m.role() != Role.TOOL) {
        finalStart = i;
      }
      if (m.role() == Role.USER) {
        lastUser = i;
        break;
      }
    }
    List<Message> kept = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Message m = messages.get(i);
      if (m.uiOnly()) {
        continue;
      }
      if (i < head || i >= finalStart || m.pinned() || (newestUser && i == lastUser)) {
        kept.add(m);
      }
    }
    return kept.isEmpty() ? 0 : counter.countMessages(kept);
  }
}
