package dev.compactor.replay.strategy;

/**
 * {@code summarize}: a checkpoint summary when the context reaches the budget, keeping the most
 * recent 20,000 tokens verbatim. See {@link BudgetTriggeredStrategy}.
 */
public final class SummarizeStrategy extends BudgetTriggeredStrategy {
  /** The registered name. */
  public static final String NAME = "summarize";

  /** The {@link java.util.ServiceLoader} constructor. */
  public SummarizeStrategy() {
    super(
        NAME,
        "a checkpoint summary when the context reaches the budget, keeping the most recent 20,000 tokens verbatim");
  }
}
