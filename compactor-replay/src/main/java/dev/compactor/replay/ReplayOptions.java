package dev.compactor.replay;

import dev.compactor.core.Bounds;
import dev.compactor.core.budget.BudgetValue;
import dev.compactor.core.catalog.PriceTable;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.replay.cost.ScorecardPrices;
import java.util.Objects;

/**
 * How a replay is run.
 *
 * @param window context window in tokens, or null for each conversation's model's window from the
 *     model catalog
 * @param maxOutput output tokens reserved per call, or null for the model's maximum output
 * @param contextBudget the budget as written ({@code 0.85} of the window, or {@code 20000} tokens),
 *     or null for the default {@code min(0.9 × window, window − maxOutput − 1000, 256k)}; clamped
 *     to {@code window − maxOutput − 1000}
 * @param model the model the calls go to (window, output and prices), or null for the model each
 *     conversation names, else {@value #DEFAULT_MODEL}
 * @param counter how every strategy's calls are counted (default: jtokkit {@code o200k_base})
 * @param prices what calls cost
 * @param threads conversations replayed in parallel, &ge; 1
 */
public record ReplayOptions(
    Long window,
    Integer maxOutput,
    String contextBudget,
    String model,
    TokenCounter counter,
    PriceTable prices,
    int threads) {

  /** The model of conversations that name none. */
  public static final String DEFAULT_MODEL = "openai/gpt-4o";

  /** The scorecard's window: small enough that most corpus trajectories need compaction. */
  public static final long SCORECARD_WINDOW = 32_768;

  /** The scorecard's reserved output. */
  public static final int SCORECARD_MAX_OUTPUT = 4_096;

  public ReplayOptions {
    Objects.requireNonNull(counter, "counter");
    Objects.requireNonNull(prices, "prices");
    if (window != null && window < 1) {
      throw new IllegalArgumentException("window must be >= 1 token, got " + window);
    }
    if (maxOutput != null && maxOutput < 0) {
      throw new IllegalArgumentException("max output must be >= 0 tokens, got " + maxOutput);
    }
    if (window != null && maxOutput != null && maxOutput >= window) {
      throw new IllegalArgumentException(
          "max output " + maxOutput + " must be smaller than the window " + window);
    }
    if (contextBudget != null) {
      BudgetValue.parse(contextBudget, "context budget");
    }
    Bounds.atLeast(1, threads, "threads");
  }

  /** Catalog window and output, default budget, o200k counting, built-in prices, all cores. */
  public static ReplayOptions defaults() {
    return new ReplayOptions(
        null,
        null,
        null,
        null,
        TokenCounters.o200k(),
        ScorecardPrices.builtIn(),
        Runtime.getRuntime().availableProcessors());
  }

  /** The scorecard's settings: window 32,768, output 4,096, default budget (27,672). */
  public static ReplayOptions scorecard() {
    return defaults().withWindow(SCORECARD_WINDOW).withMaxOutput(SCORECARD_MAX_OUTPUT);
  }

  public ReplayOptions withWindow(Long w) {
    return new ReplayOptions(w, maxOutput, contextBudget, model, counter, prices, threads);
  }

  public ReplayOptions withMaxOutput(Integer o) {
    return new ReplayOptions(window, o, contextBudget, model, counter, prices, threads);
  }

  public ReplayOptions withContextBudget(String b) {
    return new ReplayOptions(window, maxOutput, b, model, counter, prices, threads);
  }

  public ReplayOptions withModel(String m) {
    return new ReplayOptions(window, maxOutput, contextBudget, m, counter, prices, threads);
  }

  public ReplayOptions withCounter(TokenCounter c) {
    return new ReplayOptions(window, maxOutput, contextBudget, model, c, prices, threads);
  }

  public ReplayOptions withPrices(PriceTable p) {
    return new ReplayOptions(window, maxOutput, contextBudget, model, counter, p, threads);
  }

  public ReplayOptions withThreads(int t) {
    return new ReplayOptions(window, maxOutput, contextBudget, model, counter, prices, t);
  }
}
