package dev.compactor.replay;

import java.util.List;
import java.util.Objects;

/**
 * One conversation replayed under one strategy.
 *
 * @param strategy the strategy's name
 * @param conversation the conversation's name within its file
 * @param metrics the figures
 * @param inputPerCall the input tokens of each call, in order (for charts)
 * @param failures the first few failed compactions, as "strategy: reason" (for diagnosis)
 */
public record StrategyRun(
    String strategy,
    String conversation,
    Metrics metrics,
    long[] inputPerCall,
    List<String> failures) {
  public StrategyRun {
    Objects.requireNonNull(strategy, "strategy");
    Objects.requireNonNull(conversation, "conversation");
    Objects.requireNonNull(metrics, "metrics");
    inputPerCall = inputPerCall.clone();
    failures = List.copyOf(failures);
  }

  @Override
  public long[] inputPerCall() {
    return inputPerCall.clone();
  }
}
