package dev.compactor.cli.config;

import dev.compactor.core.budget.BudgetSetting;
import java.util.Objects;

/**
 * One {@code [models."provider/model"]} table; absent keys are null.
 *
 * @param model the table's key as written (lower-cased)
 * @param contextBudget {@code context_budget}, with its source ({@code
 *     models."provider/model".context_budget in <file>})
 * @param contextWindow {@code context_window}: overrides the catalog's window, &gt; 0
 * @param maxOutput {@code max_output}: overrides the catalog's output limit, &ge; 0
 * @param file the file it came from, as displayed
 */
public record ModelSection(
    String model, BudgetSetting contextBudget, Long contextWindow, Integer maxOutput, String file) {
  public ModelSection {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(file, "file");
  }

  /** The source label of one of this table's keys: {@code models."<model>".<key> in <file>}. */
  public String source(String key) {
    return source(model, key, file);
  }

  static String source(String model, String key, String file) {
    return "models.\"" + model + "\"." + key + " in " + file;
  }
}
