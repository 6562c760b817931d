package dev.compactor.cli.config;

import dev.compactor.core.budget.BudgetInputs;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.ContextBudget;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The configuration files, loaded: the project's {@code compactor.toml} and the user's {@code
 * config.toml} (see {@link ConfigLocations#standard}), both optional.
 *
 * <p>Keys read:
 *
 * <ul>
 *   <li>{@code [context] budget}, {@code compact_instructions}, {@code keep_recent_tokens} — the
 *       project's value wins over the user's;
 *   <li>{@code [models."provider/model"] context_budget} — the per-model budget layer;
 *   <li>{@code [models."provider/model"] context_window / max_output} — extend or override the
 *       model catalog.
 * </ul>
 *
 * {@code [models]} tables may appear in either file; for the same model and key the project's value
 * wins.
 *
 * <p>Loading validates every value: errors name the file and the key, e.g. {@code context budget
 * "1.5" from [context] budget in ./compactor.toml must be a fraction <= 1 of the window or a whole
 * number of tokens}. Immutable.
 *
 * <pre>{@code
 * Map<String, String> env = System.getenv();
 * CompactorConfig config = CompactorConfig.load(ConfigLocations.standard(Path.of("."), env));
 * ResolvedBudget budget = config.resolveBudget("anthropic/claude-sonnet-4-5", env,
 *     BudgetSetting.of(cliValue, "--context-budget")); // explicit may be null
 * }</pre>
 */
public final class CompactorConfig {
  private final ConfigFile project;
  private final ConfigFile user;

  private CompactorConfig(ConfigFile project, ConfigFile user) {
    this.project = project;
    this.user = user;
  }

  /**
   * Loads the files that exist.
   *
   * @throws dev.compactor.core.CompactorException naming file (and key) when a file is unreadable,
   *     not TOML, or holds an invalid value
   */
  public static CompactorConfig load(ConfigLocations locations) {
    return new CompactorConfig(
        ConfigFile.read(locations.projectFile(), locations.display(locations.projectFile()))
            .orElse(null),
        ConfigFile.read(locations.userFile(), locations.display(locations.userFile()))
            .orElse(null));
  }

  /**
   * The keys of the loaded files that Compactor does not know, each with its path and file: worth a
   * warning, since a misspelt key silently changes nothing.
   */
  public List<String> unknownKeys() {
    List<String> out = new ArrayList<>();
    project().ifPresent(f -> out.addAll(f.unknownKeys()));
    user().ifPresent(f -> out.addAll(f.unknownKeys()));
    return out;
  }

  /** A configuration of already parsed files (either may be null). */
  public static CompactorConfig of(ConfigFile project, ConfigFile user) {
    return new CompactorConfig(project, user);
  }

  public Optional<ConfigFile> project() {
    return Optional.ofNullable(project);
  }

  public Optional<ConfigFile> user() {
    return Optional.ofNullable(user);
  }

  /** {@code [context] budget} of the project file. */
  public Optional<BudgetSetting> projectBudget() {
    return project().map(f -> f.context().budget());
  }

  /** {@code [context] budget} of the user file. */
  public Optional<BudgetSetting> userBudget() {
    return user().map(f -> f.context().budget());
  }

  /** {@code [context] compact_instructions}, project over user. */
  public Optional<String> compactInstructions() {
    return firstContext(c -> c.compactInstructions());
  }

  /** {@code [context] keep_recent_tokens}, project over user. */
  public OptionalLong keepRecentTokens() {
    Optional<Long> v = firstContext(c -> c.keepRecentTokens());
    return v.map(OptionalLong::of).orElse(OptionalLong.empty());
  }

  /** Every {@code [models]} table: the project's first, then the user's. */
  public List<ModelSection> models() {
    List<ModelSection> all = new ArrayList<>();
    if (project != null) {
      all.addAll(project.models().values());
    }
    if (user != null) {
      all.addAll(user.models().values());
    }
    return all;
  }

  /**
   * {@code base} extended with every {@code [models]} table's {@code context_window} and {@code
   * max_output} (window source {@code models."<model>".context_window in <file>}).
   */
  public ModelCatalog catalog(ModelCatalog base) {
    ModelCatalog c = base;
    List<ModelSection> all = models();
    for (int i = all.size() - 1; i >= 0; i--) { // user first, so the project's keys win
      ModelSection m = all.get(i);
      if (m.contextWindow() != null || m.maxOutput() != null) {
        c =
            c.withOverride(
                m.model(),
                m.contextWindow() == null
                    ? OptionalLong.empty()
                    : OptionalLong.of(m.contextWindow()),
                m.maxOutput() == null ? OptionalInt.empty() : OptionalInt.of(m.maxOutput()),
                m.source("context_window"));
      }
    }
    return c;
  }

  /**
   * The {@code context_budget} of the {@code [models]} table that applies to {@code model}: the
   * table named exactly like it, else one whose name resolves in {@code catalog} to the same model
   * (so {@code [models."claude-sonnet-4-5"]} applies to {@code
   * anthropic/claude-sonnet-4-5-20250929}).
   */
  public Optional<BudgetSetting> modelBudget(String model, ModelCatalog catalog) {
    String q = model.trim().toLowerCase(Locale.ROOT);
    List<ModelSection> all = models();
    for (ModelSection m : all) {
      if (m.model().equals(q) && m.contextBudget() != null) {
        return Optional.of(m.contextBudget());
      }
    }
    Optional<ModelInfo> target = catalog.find(q);
    if (target.isEmpty()) {
      return Optional.empty();
    }
    for (ModelSection m : all) {
      if (m.contextBudget() != null
          && catalog.find(m.model()).map(i -> i.id().equals(target.get().id())).orElse(false)) {
        return Optional.of(m.contextBudget());
      }
    }
    return Optional.empty();
  }

  /**
   * The budget inputs for {@code model}: the catalog ({@code base} extended by these files), the
   * environment, the explicit option and every configured layer.
   *
   * @param model {@code provider/model} or a bare name
   * @param base the catalog to extend, usually {@link ModelCatalog#builtIn()}
   * @param env the environment, e.g. {@code System.getenv()}
   * @param explicit the explicit option with its source label, or null
   * @throws dev.compactor.core.catalog.InvalidSettingException when {@code
   *     COMPACTOR_CONTEXT_LENGTH} is invalid
   */
  public BudgetInputs budgetInputs(
      String model, ModelCatalog base, Map<String, String> env, BudgetSetting explicit) {
    ModelCatalog catalog = catalog(base);
    ModelInfo info = catalog.lookup(model, env);
    return BudgetInputs.builder(info)
        .env(env)
        .explicit(explicit)
        .perModel(modelBudget(model, catalog).orElse(null))
        .project(projectBudget().orElse(null))
        .user(userBudget().orElse(null))
        .build();
  }

  /**
   * Resolves the budget of {@code model} with the built-in catalog (see {@link #budgetInputs} and
   * {@link ContextBudget#resolve}).
   */
  public ResolvedBudget resolveBudget(
      String model, Map<String, String> env, BudgetSetting explicit) {
    return ContextBudget.resolve(budgetInputs(model, ModelCatalog.builtIn(), env, explicit));
  }

  private <T> Optional<T> firstContext(java.util.function.Function<ContextSection, T> key) {
    List<ConfigFile> files = new ArrayList<>();
    if (project != null) {
      files.add(project);
    }
    if (user != null) {
      files.add(user);
    }
    for (ConfigFile f : files) {
      T v = key.apply(f.context());
      if (v != null) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }
}
