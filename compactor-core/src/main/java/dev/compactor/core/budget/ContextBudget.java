package dev.compactor.core.budget;

import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Resolves the context budget: the token count at which automatic compaction fires, distinct from
 * the provider's window.
 *
 * <p><b>Layers, first match wins:</b>
 *
 * <ol>
 *   <li>the explicit option (command line, or persisted for the conversation);
 *   <li>{@value #BUDGET_ENV};
 *   <li>per-model user config {@code [models."provider/model"] context_budget};
 *   <li>project {@code compactor.toml} {@code [context] budget}, then user {@code config.toml}
 *       {@code [context] budget};
 *   <li>model metadata (the catalog's {@code context_budget}, e.g. 0.9 for Anthropic's native 1M
 *       models);
 *   <li>the default {@code min(0.9 × window, window − max_output − headroom, 256k)}, floored at
 *       1,000 but never above the ceiling.
 * </ol>
 *
 * <p>A value is a fraction {@code 0 < v <= 1} of the window or a whole number of tokens {@code v >
 * 1}. Configured values are clamped to the ceiling {@code window − max_output − headroom} (headroom
 * {@value #DEFAULT_HEADROOM}), so they cannot make requests overflow; when that ceiling is &le; 0
 * it is {@code max(1, min(1000, window))}. They are never raised to the default's 1,000 floor, only
 * to 1 token. The window is the model's, or {@code COMPACTOR_CONTEXT_LENGTH} from the inputs'
 * environment when set.
 *
 * <p><b>Invalid values fail</b> — also in the environment, and also in a layer a higher one
 * overrides, so a typo never lurks: every present layer is parsed, and the first invalid one throws
 * an {@link InvalidSettingException} naming the value and its source, e.g. {@code context budget
 * "0.0" from COMPACTOR_CONTEXT_BUDGET must be > 0}. Empty strings are invalid, not unset.
 *
 * <p>Examples (max output 8,192 unless said): 200k → 180,000; 8,192 → 1,000; 500 → 500; 200k with
 * 64k output → 135,000; unvalidated 1M → 256,000; 1M with metadata 0.9 and 128k output → 871,000
 * (the ceiling); env {@code 1.0} with 64k output on 200k → 135,000.
 *
 * <pre>{@code
 * ModelInfo model = ModelCatalog.builtIn().lookup("anthropic/claude-sonnet-4-5");
 * ResolvedBudget b = ContextBudget.resolve(BudgetInputs.builder(model)
 *     .env(System.getenv()).explicit("0.85", "--context-budget").build());
 * }</pre>
 */
public final class ContextBudget {
  public static final String BUDGET_ENV = "COMPACTOR_CONTEXT_BUDGET";
  public static final long DEFAULT_HEADROOM = 1_000;
  public static final double DEFAULT_FRACTION = 0.9;
  public static final long DEFAULT_CAP = 256_000;
  public static final long DEFAULT_FLOOR = 1_000;
  public static final String SOURCE_METADATA = "model metadata";
  public static final String SOURCE_DEFAULT = "default";

  static final String SETTING = "context budget";

  private ContextBudget() {}

  /**
   * Resolves the budget (see the class comment).
   *
   * @throws InvalidSettingException when any present layer, {@code COMPACTOR_CONTEXT_BUDGET} or
   *     {@code COMPACTOR_CONTEXT_LENGTH} holds an invalid value
   */
  public static ResolvedBudget resolve(BudgetInputs inputs) {
    ModelInfo model = ModelCatalog.applyEnvironment(inputs.model(), inputs.env());
    long window = model.contextWindow();
    int maxOutput = inputs.effectiveMaxOutput();
    long ceiling = ceiling(window, maxOutput, inputs.headroom());

    List<BudgetValue> layers = new ArrayList<>();
    add(layers, inputs.explicit());
    String env = inputs.env().get(BUDGET_ENV);
    if (env != null) {
      layers.add(BudgetValue.parse(env, BUDGET_ENV));
    }
    add(layers, inputs.perModel());
    add(layers, inputs.project());
    add(layers, inputs.user());
    if (model.contextBudget().isPresent()) {
      layers.add(new BudgetValue(model.contextBudget().getAsDouble(), SOURCE_METADATA));
    }
    if (!layers.isEmpty()) {
      BudgetValue first = layers.get(0);
      long requested = first.tokensFor(window);
      long tokens = Math.max(1, Math.min(requested, ceiling));
      return new ResolvedBudget(
          tokens, first.source(), window, model.windowSource(), maxOutput, requested);
    }
    return new ResolvedBudget(
        defaultBudget(window, maxOutput, inputs.headroom()),
        SOURCE_DEFAULT,
        window,
        model.windowSource(),
        maxOutput);
  }

  /**
   * The most a budget may be: {@code window − maxOutput − headroom}, or {@code max(1, min(1000,
   * window))} when that is &le; 0.
   */
  public static long ceiling(long window, int maxOutput, long headroom) {
    long c = window - maxOutput - headroom;
    return c > 0 ? c : Math.max(1, Math.min(DEFAULT_FLOOR, window));
  }

  /**
   * The default budget: {@code min(0.9 × window, ceiling, 256k)}, raised to 1,000 but never above
   * the ceiling.
   */
  public static long defaultBudget(long window, int maxOutput, long headroom) {
    long ceiling = ceiling(window, maxOutput, headroom);
    long b = Math.min(Math.min((long) Math.floor(DEFAULT_FRACTION * window), ceiling), DEFAULT_CAP);
    return Math.min(Math.max(b, DEFAULT_FLOOR), ceiling);
  }

  private static void add(List<BudgetValue> layers, BudgetSetting setting) {
    if (setting != null) {
      layers.add(BudgetValue.parse(setting.value(), setting.source()));
    }
  }
}
