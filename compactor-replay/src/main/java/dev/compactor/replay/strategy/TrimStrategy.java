package dev.compactor.replay.strategy;

/**
 * {@code trim}: the rule-based trim when the context reaches the budget, toward 70 % of it
 * (stale-output stubs, truncation, extractive compression). See {@link BudgetTriggeredStrategy}.
 */
public final class TrimStrategy extends BudgetTriggeredStrategy {
  /** The registered name. */
  public static final String NAME = "trim";

  /** The {@link java.util.ServiceLoader} constructor. */
  public TrimStrategy() {
    super(
        NAME,
        "the rule-based trim when the context reaches the budget, toward 70 % of it (stale-output stubs, truncation, extractive compression)");
  }
}
