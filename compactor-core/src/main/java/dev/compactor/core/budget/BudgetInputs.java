package dev.compactor.core.budget;

import dev.compactor.core.Bounds;
import dev.compactor.core.catalog.ModelInfo;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a context budget is resolved from, as plain values (core reads no files and no process
 * environment). Build with {@link #builder(ModelInfo)}.
 *
 * @param model the model: window, output limit and its metadata budget override
 * @param env the environment ({@code COMPACTOR_CONTEXT_BUDGET}, {@code COMPACTOR_CONTEXT_LENGTH});
 *     never null
 * @param explicit the explicit option (command line, or persisted for the conversation), or null
 * @param perModel {@code [models."provider/model"] context_budget} of the user config, or null
 * @param project {@code [context] budget} of the project's {@code compactor.toml}, or null
 * @param user {@code [context] budget} of the user's {@code config.toml}, or null
 * @param maxOutputTokens tokens reserved for the response; null takes the model's limit
 * @param headroom tokens reserved besides the response, &ge; 0
 */
public record BudgetInputs(
    ModelInfo model,
    Map<String, String> env,
    BudgetSetting explicit,
    BudgetSetting perModel,
    BudgetSetting project,
    BudgetSetting user,
    Integer maxOutputTokens,
    long headroom) {

  public BudgetInputs {
    Objects.requireNonNull(model, "model");
    env = env == null ? Map.of() : Map.copyOf(env);
    if (maxOutputTokens != null && maxOutputTokens < 0) {
      throw new IllegalArgumentException("max output tokens must be >= 0, got " + maxOutputTokens);
    }
    Bounds.atLeast(0, headroom, "headroom");
  }

  public static Builder builder(ModelInfo model) {
    return new Builder(model);
  }

  /** The output reservation in effect. */
  public int effectiveMaxOutput() {
    return maxOutputTokens != null ? maxOutputTokens : model.maxOutputTokens();
  }

  /** Builder of {@link BudgetInputs}; every layer is optional. */
  public static final class Builder {
    private final ModelInfo model;
    private Map<String, String> env = Map.of();
    private BudgetSetting explicit;
    private BudgetSetting perModel;
    private BudgetSetting project;
    private BudgetSetting user;
    private Integer maxOutputTokens;
    private long headroom = ContextBudget.DEFAULT_HEADROOM;

    private Builder(ModelInfo model) {
      this.model = Objects.requireNonNull(model, "model");
    }

    /** The environment; entries with null values are ignored. */
    public Builder env(Map<String, String> env) {
      Map<String, String> copy = new java.util.HashMap<>();
      env.forEach(
          (k, v) -> {
            if (k != null && v != null) {
              copy.put(k, v);
            }
          });
      this.env = copy;
      return this;
    }

    /** The explicit option, e.g. {@code ("0.85", "--context-budget")}. */
    public Builder explicit(String value, String source) {
      this.explicit = new BudgetSetting(value, source);
      return this;
    }

    public Builder explicit(BudgetSetting setting) {
      this.explicit = setting;
      return this;
    }

    public Builder perModel(BudgetSetting setting) {
      this.perModel = setting;
      return this;
    }

    public Builder project(BudgetSetting setting) {
      this.project = setting;
      return this;
    }

    public Builder user(BudgetSetting setting) {
      this.user = setting;
      return this;
    }

    /** Tokens reserved for the response, instead of the model's limit. */
    public Builder maxOutputTokens(int maxOutputTokens) {
      this.maxOutputTokens = maxOutputTokens;
      return this;
    }

    public Builder headroom(long headroom) {
      this.headroom = headroom;
      return this;
    }

    public BudgetInputs build() {
      return new BudgetInputs(
          model, env, explicit, perModel, project, user, maxOutputTokens, headroom);
    }
  }
}
