package dev.compactor.core.budget;

import java.util.Objects;

/**
 * One configured context budget, unparsed: the value as the user wrote it and where it came from.
 * {@link ContextBudget} parses it, so its errors can name both.
 *
 * @param value e.g. {@code 0.85} or {@code 300000}; may be null or blank (then invalid when used)
 * @param source e.g. {@code --context-budget}, {@code COMPACTOR_CONTEXT_BUDGET}, {@code [context]
 *     budget in ./compactor.toml}; never null
 */
public record BudgetSetting(String value, String source) {
  public BudgetSetting {
    Objects.requireNonNull(source, "source");
  }

  public static BudgetSetting of(String value, String source) {
    return new BudgetSetting(value, source);
  }
}
