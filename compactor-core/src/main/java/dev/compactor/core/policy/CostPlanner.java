package dev.compactor.core.policy;

import dev.compactor.core.Bounds;
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
    Bounds.atLeast(0, keepLast, "keepLast");
    Bounds.atLeast(0, minCalls, "minCalls");
  }

  /** The same plan with other thresholds. */
  public CostPlanner with(double maskFromRatio, double margin, int keepLast) {
    return new CostPlanner(cacheRead, cacheWrite, maskFromRatio, margin, keepLast, minCalls);
  }

  /**
   * The least context size, in tokens, at which early masking may be planned under a budget of
   * {@code budgetTokens}: {@link #maskFromRatio()} of it, rounded up. A smaller context is never
   * masked early, so a caller that knows its size (e.g. the proxy, from the previous request's
   * count) may skip the policy below it.
   */
  public long planFrom(long budgetTokens) {
    return (long) Math.ceil(maskFromRatio * budgetTokens);
  }

  /**
   * Tool outputs of {@code context} that early masking would consider: all of them (UI-only
   * messages aside) but the last {@link #keepLast()}; 0 or less when there are none.
   */
  public int due(List<Message> context) {
    int outputs = 0;
    for (Message m : context) {
      if (m.role() == Role.TOOL && !m.uiOnly()) {
        outputs++;
      }
    }
    return outputs - keepLast;
  }

  /**
   * Whether early masking may be planned for a context of {@code tokens} holding {@code context}
   * under a budget of {@code budgetTokens}: below the budget, at least {@link #planFrom}, with
   * outputs {@link #due}. When false the planner does nothing for it; when true it still checks
   * which outputs can be masked and whether that pays.
   */
  public boolean mayMaskEarly(List<Message> context, long tokens, long budgetTokens) {
    return tokens < budgetTokens && tokens >= planFrom(budgetTokens) && due(context) > 0;
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

  /**
   * The plan a compaction was chosen by, as its journal note states it ({@link #describe}).
   *
   * @param name what was planned (e.g. {@code early mask})
   * @param saved tokens saved on each later call
   * @param expectedCalls later calls the planner expected
   * @param rewritten cached tokens the next call rewrites
   * @param predicted the predicted net saving, in input-price tokens
   */
  public record Plan(
      String name, long saved, long expectedCalls, long rewritten, double predicted) {

    private static final java.util.regex.Pattern NOTE =
        java.util.regex.Pattern.compile(
            "(.+): saves ([\\d,]+) tokens on each of ~([\\d,]+) expected calls, rewrites ([\\d,]+)"
                + " cached tokens; predicted net saving (-?[\\d,]+) input-price tokens");

    /**
     * The net saving this plan realised under {@code planner}'s prices when the conversation made
     * {@code actualCalls} calls after it (instead of the expected ones).
     */
    public double realised(CostPlanner planner, long actualCalls) {
      return planner.net(saved, rewritten, actualCalls, 0);
    }

    /** The plan a compaction's notes (its journal limitations) state, if any. */
    public static java.util.Optional<Plan> of(List<String> notes) {
      for (String note : notes) {
        java.util.regex.Matcher m = NOTE.matcher(note);
        if (m.matches()) {
          return java.util.Optional.of(
              new Plan(
                  m.group(1),
                  number(m.group(2)),
                  number(m.group(3)),
                  number(m.group(4)),
                  number(m.group(5))));
        }
      }
      return java.util.Optional.empty();
    }

    private static long number(String digits) {
      return Long.parseLong(digits.replace(",", ""));
    }
  }

  /** A one-line account of a plan, for the journal (read back by {@link Plan#of}). */
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
