package dev.compactor.core.policy;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.util.List;
import java.util.Locale;

/**
 * Plans compactions by what they cost under prompt caching (#16).
 *
 * <p>A provider bills a token of the request prefix it has cached at {@link #cacheRead()} times the
 * input price and a token it has not (written to the cache) at {@link #cacheWrite()} times. A
 * compaction that saves {@code S} tokens and leaves {@code R} tokens after the first message it
 * changed makes the next call write those {@code R} tokens instead of reading them, and every later
 * call read {@code S} tokens fewer. Over {@code N} expected later calls its net saving, in
 * input-price tokens, is
 *
 * <pre>
 * net = cacheRead · S · N − (cacheWrite − cacheRead) · R − summaryCost
 * </pre>
 *
 * <p><b>Expected later calls.</b> {@code N} is estimated from the conversation so far with the
 * simplest model that knows nothing of the task: a conversation that has made {@code n} calls is
 * expected to make as many again (the median of a scale-free lifetime, "Lindy"), at least {@link
 * #minCalls()}.
 *
 * <p><b>Early masking.</b> Below the budget, when the context is at least {@link #maskFromRatio()}
 * of it, the planner masks every tool output but the last {@link #keepLast()} as soon as that pays
 * {@link #margin()} times over: {@code cacheRead · S · N ≥ margin · (cacheWrite − cacheRead) · R}.
 * The batch size is not fixed: it is whatever has accumulated when masking starts to pay, so an
 * output is masked once, and the prefix before the first masked one (the system prompt, the task,
 * earlier placeholders) stays cached.
 *
 * <p>The price parameters come from the scorecard's price table: reads at 10 % of the input price
 * under both cache schemes, writes at 100 % (OpenAI) or 125 % (Anthropic); the default plans for
 * the dearer writes. Immutable.
 *
 * @param cacheRead multiplier of the input price for a cached token (0.10)
 * @param cacheWrite multiplier for an uncached token, written to the cache (1.25)
 * @param maskFromRatio share of the budget from which early masking is considered
 * @param margin how many times over a masking must pay back its cache rewrite
 * @param keepLast tool outputs kept verbatim at the end when masking
 * @param minCalls the least number of later calls assumed
 */
public record CostPlanner(
    double cacheRead,
    double cacheWrite,
    double maskFromRatio,
    double margin,
    int keepLast,
    int minCalls) {

  /**
   * The default plan: Anthropic-style writes, masking from 25 % of the budget as soon as the
   * predicted net saving is positive (margin 1), keeping the last 2 outputs.
   */
  public static final CostPlanner DEFAULTS = new CostPlanner(0.10, 1.25, 0.25, 1.0, 2, 1);

  public CostPlanner {
    if (!(cacheRead >= 0 && cacheRead <= cacheWrite)) {
      throw new IllegalArgumentException(
          "cacheRead must be in [0, cacheWrite], got "
              + cacheRead
              + " (cacheWrite "
              + cacheWrite
              + ")");
    }
    if (!(maskFromRatio > 0 && maskFromRatio <= 1)) {
      throw new IllegalArgumentException("maskFromRatio must be in (0, 1], got " + maskFromRatio);
    }
    if (!(margin >= 0)) {
      throw new IllegalArgumentException("margin must be >= 0, got " + margin);
    }
    if (keepLast < 0) {
      throw new IllegalArgumentException("keepLast must be >= 0, got " + keepLast);
    }
    if (minCalls < 0) {
      throw new IllegalArgumentException("minCalls must be >= 0, got " + minCalls);
    }
  }

  /** The same plan with other thresholds. */
  public CostPlanner with(double maskFromRatio, double margin, int keepLast) {
    return new CostPlanner(cacheRead, cacheWrite, maskFromRatio, margin, keepLast, minCalls);
  }

  /** Expected later calls of a conversation whose master log holds these messages. */
  public long expectedCalls(List<Message> master) {
    long calls = 0;
    for (Message m : master) {
      if (m.role() == Role.ASSISTANT && !m.uiOnly()) {
        calls++;
      }
    }
    return Math.max(minCalls, calls);
  }

  /**
   * Net saving, in input-price tokens, of a compaction that saves {@code saved} tokens per call and
   * makes the next call rewrite {@code rewritten} tokens, over {@code calls} later calls, minus
   * {@code extra} (e.g. a summary call's cost).
   */
  public double net(long saved, long rewritten, long calls, double extra) {
    return cacheRead * saved * calls - (cacheWrite - cacheRead) * rewritten - extra;
  }

  /** Whether a masking of this saving and rewrite pays {@link #margin()} times over. */
  public boolean pays(long saved, long rewritten, long calls) {
    return saved > 0 && cacheRead * saved * calls >= margin * (cacheWrite - cacheRead) * rewritten;
  }

  /** A one-line account of a plan, for the journal. */
  public String describe(String plan, long saved, long rewritten, long calls) {
    return String.format(
        Locale.ROOT,
        "%s: saves %,d tokens on each of ~%,d expected calls, rewrites %,d cached tokens;"
            + " predicted net saving %,.0f input-price tokens",
        plan,
        saved,
        calls,
        rewritten,
        net(saved, rewritten, calls, 0));
  }
}
