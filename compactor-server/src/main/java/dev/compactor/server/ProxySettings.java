package dev.compactor.server;

import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.BudgetValue;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How the compacting proxy treats the conversations of one upstream, and of single models on it
 * ({@code [upstreams.NAME]} and {@code [upstreams.NAME.models."MODEL"]} of {@code compactor.toml}).
 * Each field may be unset (null), then the next layer decides: a request's {@code
 * X-Compactor-Budget} header, then the model's policy, then the upstream's, then the model catalog
 * (for the budget) or the default (reminder off, the target 0.6 of the budget, the offline
 * extractive summarizer).
 *
 * @param budget the context budget, tokens ({@code 60000}) or a fraction of the window ({@code
 *     0.5}), with where it was configured; null for unset
 * @param reminder whether the 90 % reminder is sent; null for unset (off)
 * @param target the fraction of the budget a compaction aims at, in (0, 1]; null for unset (the
 *     proxy's {@code ProxyPolicy.DEFAULT_TARGET}, 0.6)
 * @param summaryModel the model that writes summaries, {@code provider/model} as chat-task models
 *     are named ({@code openai/gpt-4o-mini}, {@code gpu-box/Qwen3-8B}); null for the offline
 *     extractive summarizer
 * @param models per-model policies by the model name the request body gives ({@code gpt-4o}); their
 *     own {@code models} are empty
 */
public record ProxySettings(
    BudgetSetting budget,
    Boolean reminder,
    Double target,
    String summaryModel,
    Map<String, ProxySettings> models) {
  /** Nothing set. */
  public static final ProxySettings NONE = new ProxySettings(null, null, null, null, Map.of());

  /**
   * @throws dev.compactor.core.catalog.InvalidSettingException when the budget is not a positive
   *     number of tokens or a fraction in (0, 1] (naming the value and its source)
   * @throws IllegalArgumentException when the target is not in (0, 1], the summary model is not
   *     {@code provider/model}, or a per-model policy has models of its own
   */
  public ProxySettings {
    if (budget != null) {
      BudgetValue.parse(budget.value(), budget.source());
    }
    if (target != null && !(target > 0 && target <= 1)) {
      throw new IllegalArgumentException(
          "target " + target + " must be a fraction of the budget in (0, 1], e.g. 0.6");
    }
    if (summaryModel != null) {
      summaryModel = summaryModel.strip();
      int slash = summaryModel.indexOf('/');
      if (slash <= 0 || slash == summaryModel.length() - 1) {
        throw new IllegalArgumentException(
            "summary model \""
                + summaryModel
                + "\" must be provider/model (e.g. openai/gpt-4o-mini, or UPSTREAM/model)");
      }
    }
    Objects.requireNonNull(models, "models");
    Map<String, ProxySettings> copy = new LinkedHashMap<>();
    models.forEach(
        (name, p) -> {
          if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a per-model policy needs a model name");
          }
          if (!p.models().isEmpty()) {
            throw new IllegalArgumentException(
                "the policy of model " + name + " cannot have models of its own");
          }
          copy.put(name, p);
        });
    models = Map.copyOf(copy);
  }

  /** Whether nothing is set. */
  public boolean isEmpty() {
    return budget == null
        && reminder == null
        && target == null
        && summaryModel == null
        && models.isEmpty();
  }

  /**
   * The policy for one model of this upstream: the model's fields where set, else this one's; its
   * {@code models} empty.
   */
  public ProxySettings forModel(String model) {
    ProxySettings m = model == null ? null : models.get(model);
    if (m == null) {
      return models.isEmpty()
          ? this
          : new ProxySettings(budget, reminder, target, summaryModel, Map.of());
    }
    return new ProxySettings(
        m.budget != null ? m.budget : budget,
        m.reminder != null ? m.reminder : reminder,
        m.target != null ? m.target : target,
        m.summaryModel != null ? m.summaryModel : summaryModel,
        Map.of());
  }

  /** Whether the reminder is on (off unless set). */
  public boolean reminderOn() {
    return Boolean.TRUE.equals(reminder);
  }
}
