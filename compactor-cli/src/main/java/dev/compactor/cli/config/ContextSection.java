package dev.compactor.cli.config;

import dev.compactor.core.budget.BudgetSetting;

/**
 * The {@code [context]} table of one configuration file; absent keys are null.
 *
 * @param budget {@code budget}, with its source ({@code [context] budget in <file>})
 * @param compactInstructions {@code compact_instructions}: extra instructions for summaries and the
 *     90 % reminder
 * @param keepRecentTokens {@code keep_recent_tokens}: tokens of recent history a summary keeps
 *     verbatim, &ge; 0
 */
public record ContextSection(
    BudgetSetting budget, String compactInstructions, Long keepRecentTokens) {
  public static final ContextSection EMPTY = new ContextSection(null, null, null);
}
