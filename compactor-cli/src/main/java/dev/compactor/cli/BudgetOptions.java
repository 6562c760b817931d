package dev.compactor.cli;

import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.log.config.CompactorConfig;
import dev.compactor.log.config.ConfigLocations;
import dev.compactor.log.store.StoredConversation;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * The options every command that works on a conversation takes: the model and the context budget.
 * An explicit {@code --context-budget} given for a conversation directory is persisted in its
 * {@code settings.json} and applies to later commands on it.
 */
final class BudgetOptions {
  static final String DEFAULT_MODEL = "openai/gpt-4o";
  static final String SETTING_KEY = "context_budget";

  @Option(
      names = "--model",
      paramLabel = "M",
      description =
          "Model as provider/model (e.g. anthropic/claude-sonnet-4-5). Default: the model the"
              + " conversation names, else "
              + DEFAULT_MODEL
              + ".")
  String model;

  @Option(
      names = "--context-budget",
      paramLabel = "B",
      description =
          "Context budget: a fraction of the window (0.85) or absolute tokens (300000)."
              + " Persisted for a conversation directory.")
  String contextBudget;

  /** The model to use: explicit, else detected, else the default. */
  String model(ConversationInput input) {
    if (model != null && !model.isBlank()) {
      return model.trim();
    }
    String detected = input.detectedModel();
    return detected != null ? detected : DEFAULT_MODEL;
  }

  /** Where the model came from, for reports. */
  String modelSource(ConversationInput input) {
    if (model != null && !model.isBlank()) {
      return "--model";
    }
    return input.detectedModel() != null ? "conversation" : "default";
  }

  /**
   * Resolves the budget. For a conversation directory an explicit value is validated, then
   * persisted; without one the persisted value (if any) is the explicit layer.
   */
  ResolvedBudget resolve(ConversationInput input, String model, Map<String, String> env) {
    CompactorConfig config =
        CompactorConfig.load(ConfigLocations.standard(Path.of("").toAbsolutePath(), env));
    BudgetSetting explicit = null;
    if (contextBudget != null) {
      explicit = BudgetSetting.of(contextBudget, "--context-budget");
    } else if (input.storeDir() != null) {
      Optional<String> saved = persisted(input.storeDir());
      if (saved.isPresent()) {
        explicit =
            BudgetSetting.of(
                saved.get(),
                "context_budget persisted in " + input.storeDir().resolve("settings.json"));
      }
    }
    ResolvedBudget b = config.resolveBudget(model, env, explicit);
    if (contextBudget != null && input.storeDir() != null) {
      try (StoredConversation c = StoredConversation.open(input.storeDir())) {
        c.settings().put(SETTING_KEY, contextBudget.trim());
      }
    }
    return b;
  }

  private static Optional<String> persisted(Path dir) {
    try (StoredConversation c = StoredConversation.open(dir)) {
      return c.settings().get(SETTING_KEY);
    }
  }
}
