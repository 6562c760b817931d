package dev.compactor.replay.strategy;

/**
 * {@code mask}: observation masking when the context reaches the budget: tool outputs older than
 * the last 10 become placeholders, in batches of 10. See {@link BudgetTriggeredStrategy}.
 */
public final class MaskStrategy extends BudgetTriggeredStrategy {
  /** The registered name. */
  public static final String NAME = "mask";

  /** The {@link java.util.ServiceLoader} constructor. */
  public MaskStrategy() {
    super(
        NAME,
        "observation masking when the context reaches the budget: tool outputs older than the last 10 become placeholders, in batches of 10");
  }
}
