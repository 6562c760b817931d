package dev.compactor.server.proxy;

import dev.compactor.core.Compactor;
import dev.compactor.core.policy.CompactionOutcome;

/**
 * The 90 % reminder in the proxy, off unless the upstream's (or model's) policy switches it on
 * ({@code reminder = true}): when a conversation reaches 90 % of its budget without a compaction
 * due, the core policy's notice ("[Context notice from the context manager, not from the user] …")
 * is appended as a user message to the request sent, once per view (again only after the next
 * compaction). The notice then stays in the stored view, so every later request sends it at the
 * same place and the provider's prompt cache keeps its prefix.
 */
final class ProxyReminder {
  private ProxyReminder() {}

  /**
   * Adds the reminder to the plan when it is due.
   *
   * @return whether it did (then the plan sends the view with the notice)
   */
  static boolean remind(
      ProxyRoutes routes, ProxyRoutes.Plan p, Compactor.Result r, CompactionOutcome o) {
    if (!p.policy.reminderOn() || !(o instanceof CompactionOutcome.NotNeeded) || o.tokens() < 0) {
      return false;
    }
    if (p.reminded == p.compactions) {
      return false; // sent already since the last compaction
    }
    Compactor.Session session = p.compactor.session(r.conversation());
    if (!(session.afterTurn() instanceof CompactionOutcome.Reminded reminded)) {
      return false; // below 90 %, or tool calls pending
    }
    long after = o.tokens() + p.compactor.counter().countMessage(reminded.reminder());
    routes.reminded(p, session.messages(), after);
    return true;
  }
}
