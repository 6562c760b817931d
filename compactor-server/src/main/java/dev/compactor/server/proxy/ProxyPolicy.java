package dev.compactor.server.proxy;

import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.CompactionOutcome;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When and how deep the proxy compacts a conversation. The trigger is the {@link Compactor}'s: a
 * request at or over the conversation's budget. The compaction then aims at a lower budget, {@link
 * #target()} × the budget, with the same default policy (batched masking when that is enough, else
 * a trim toward 70 %, else a summary whose verbatim tail is at most 35 %), so the view is rewritten
 * less often. Between compactions the proxy sends its stored view plus the client's new messages
 * byte for byte, so every request until the next compaction reads the whole view from the
 * provider's prompt cache; a deeper compaction costs a little recall and input per request and
 * saves the rewrites (a rewrite is billed as uncached input, at 125 % with Anthropic). The replay
 * through the proxy measures it ({@code docs/proxy.md}, "Replay through the proxy").
 *
 * <p>Immutable and thread-safe.
 */
public final class ProxyPolicy {
  /**
   * The target the proxy uses: measured on the mini-swe-agent corpus (see {@code docs/proxy.md}).
   */
  public static final double DEFAULT_TARGET = 0.6;

  /** The proxy's policy. */
  public static final ProxyPolicy DEFAULT = new ProxyPolicy(DEFAULT_TARGET);

  private final double target;
  private final Map<String, Compactor> deeper = new ConcurrentHashMap<>();

  private ProxyPolicy(double target) {
    this.target = target;
  }

  /**
   * A policy that compacts toward {@code target} × the budget.
   *
   * @param target in (0, 1]; 1 compacts toward the budget itself, as the front door does
   * @throws IllegalArgumentException when {@code target} is outside (0, 1]
   */
  public static ProxyPolicy of(double target) {
    if (!(target > 0 && target <= 1)) {
      throw new IllegalArgumentException(
          "the proxy's compaction target must be in (0, 1] of the budget, got " + target);
    }
    return new ProxyPolicy(target);
  }

  /** The fraction of the budget a compaction aims at. */
  public double target() {
    return target;
  }

  /**
   * Compacts {@code messages} when they reach {@code compactor}'s budget: toward {@link #target()}
   * × that budget when that compacts, else as {@code compactor} alone does. Below the budget, or
   * while tool calls are pending, {@code compactor}'s outcome (not needed).
   *
   * @param compactor the conversation's model and budget (the trigger)
   * @param messages the conversation as it would be sent, oldest first
   * @return what to send; never null
   */
  public Compactor.Result compact(Compactor compactor, List<Message> messages) {
    Objects.requireNonNull(compactor, "compactor");
    if (target >= 1 || compactor.counter().countMessages(messages) < compactor.budget().tokens()) {
      return compactor.compact(messages); // below the budget: nothing to do (counts are cached)
    }
    // At the budget: one compaction, toward the target; the compactor's own only when that does
    // not compact (e.g. it failed), so a long conversation is not compacted twice.
    Compactor.Result deep = deeper(compactor).compact(messages);
    return deep.outcome() instanceof CompactionOutcome.Compacted
        ? deep
        : compactor.compact(messages);
  }

  private Compactor deeper(Compactor c) {
    long budget = c.budget().tokens();
    long lower = Math.max(1, Math.round(target * budget));
    return deeper.computeIfAbsent(
        c.model() + "\n" + budget + "\n" + c.counter().name(),
        k ->
            Compactor.forModel(c.model())
                .counter(c.counter())
                .budget(Long.toString(lower))
                .environment(Map.of())
                .build());
  }

  @Override
  public String toString() {
    return "ProxyPolicy[target=" + target + "]";
  }
}
