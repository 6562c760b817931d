package dev.compactor.core.catalog;

import dev.compactor.core.CompactorException;
import dev.compactor.core.internal.PositiveNumber;
import dev.compactor.core.tokens.TokenizerFamily;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Context windows, output limits, tokenizers and budget overrides of known models.
 *
 * <p>The built-in catalog is the resource {@code dev/compactor/core/catalog/models.tsv} (format
 * described in its header). Catalogs are immutable; {@link #with} and {@link #withOverride} return
 * extended copies (user configuration adds models and overrides windows that way).
 *
 * <p><b>Lookup</b> ({@link #find}, {@link #lookup}), on the trimmed lower-cased name:
 *
 * <ol>
 *   <li>an exact id ({@code anthropic/claude-sonnet-4-5}) or alias;
 *   <li>a bare name ({@code gpt-4o}) matches the model of that name under any provider;
 *   <li>a name with an unknown provider prefix is retried without it, segment by segment ({@code
 *       openrouter/openai/gpt-4o} → {@code openai/gpt-4o} → {@code gpt-4o});
 *   <li>prefix match for dated and tagged versions: the longest known id, alias or bare name
 *       followed by {@code -}, {@code :} or {@code @} ({@code gpt-4o-mini-2024-07-18} → {@code
 *       gpt-4o-mini}, {@code claude-sonnet-4-5@20250929} → {@code claude-sonnet-4-5}, {@code
 *       llama3.1:8b} → {@code llama3.1}).
 * </ol>
 *
 * An unknown model gets {@link #DEFAULT_CONTEXT_WINDOW} = 128,000 and {@link #DEFAULT_MAX_OUTPUT} =
 * 8,192, the tokenizer its name implies, window source {@value #SOURCE_DEFAULT}.
 *
 * <p>{@value #CONTEXT_LENGTH_ENV} overrides the window of whatever model is looked up with {@link
 * #lookup(String, Map)}; the environment is passed in, never read from the process here.
 *
 * <p>Thread-safe (immutable).
 *
 * <pre>{@code
 * ModelInfo m = ModelCatalog.builtIn().lookup("claude-sonnet-4-5-20250929", System.getenv());
 * }</pre>
 */
public final class ModelCatalog {
  public static final long DEFAULT_CONTEXT_WINDOW = 128_000;
  public static final int DEFAULT_MAX_OUTPUT = 8_192;
  public static final String CONTEXT_LENGTH_ENV = "COMPACTOR_CONTEXT_LENGTH";
  public static final String SOURCE_CATALOG = "model catalog";
  public static final String SOURCE_DEFAULT = "default for unknown models";

  private static final String RESOURCE = "models.tsv";

  private final List<ModelInfo> models;
  private final Map<String, ModelInfo> byKey = new LinkedHashMap<>();
  private final Map<String, ModelInfo> byName = new LinkedHashMap<>();
  private final Map<String, String> aliases; // alias -> id

  private ModelCatalog(List<ModelInfo> models, Map<String, String> aliases) {
    this.models = List.copyOf(models);
    for (ModelInfo m : this.models) {
      byKey.put(m.id(), m);
      byName.putIfAbsent(m.name(), m);
    }
    for (Map.Entry<String, String> a : aliases.entrySet()) {
      ModelInfo target = byKey.get(a.getValue());
      if (target != null) {
        (a.getKey().indexOf('/') < 0 ? byName : byKey).putIfAbsent(a.getKey(), target);
      }
    }
    this.aliases = Map.copyOf(aliases);
  }

  /** The built-in catalog. */
  public static ModelCatalog builtIn() {
    return BuiltIn.CATALOG;
  }

  /** An empty catalog: every lookup gives the defaults. */
  public static ModelCatalog empty() {
    return new ModelCatalog(List.of(), Map.of());
  }

  /**
   * Parses a catalog in the {@code models.tsv} format.
   *
   * @param text the file's text
   * @param source its name, for error messages
   * @throws CompactorException naming the source and line when a line is malformed
   */
  public static ModelCatalog parse(String text, String source) {
    List<ModelInfo> models = new ArrayList<>();
    Map<String, String> aliases = new LinkedHashMap<>();
    for (TableRow row : TableRow.parse(text, source)) {
      String where = row.where();
      String[] f = row.fields();
      if (f.length != 7) {
        throw new CompactorException(
            where
                + ": expected 7 columns (id window max_output tokenizer validated"
                + " context_budget aliases), got "
                + f.length);
      }
      try {
        String id = ModelInfo.normalize(f[0]);
        if (id.indexOf('/') < 0) {
          throw new IllegalArgumentException("id \"" + f[0] + "\" must be provider/model");
        }
        ModelInfo m =
            new ModelInfo(
                id,
                ModelInfo.providerOf(id),
                ModelInfo.nameOf(id),
                parseWhole(f[1], "window"),
                Math.toIntExact(parseWhole(f[2], "max_output")),
                f[5].equals("-")
                    ? OptionalDouble.empty()
                    : OptionalDouble.of(Double.parseDouble(f[5].replace("_", ""))),
                TokenizerFamily.parse(f[3]),
                parseYesNo(f[4]),
                SOURCE_CATALOG);
        models.add(m);
        if (!f[6].equals("-")) {
          for (String alias : f[6].split(",")) {
            if (!alias.isBlank()) {
              aliases.put(ModelInfo.normalize(alias), id);
            }
          }
        }
      } catch (IllegalArgumentException | ArithmeticException e) {
        throw new CompactorException(where + ": " + e.getMessage(), e);
      }
    }
    return new ModelCatalog(models, aliases);
  }

  /** Every model, in catalog order. */
  public List<ModelInfo> models() {
    return models;
  }

  /**
   * The model of that name, by the lookup rules of the class comment.
   *
   * @param model {@code provider/model} or a bare name, never blank
   * @return the catalog entry, or empty when the model is unknown
   * @throws IllegalArgumentException when the name is null or blank
   */
  public Optional<ModelInfo> find(String model) {
    String q = ModelInfo.normalize(model);
    for (String s = q; ; s = s.substring(s.indexOf('/') + 1)) {
      ModelInfo m = byKey.get(s);
      if (m == null) {
        m = byName.get(s);
      }
      if (m != null) {
        return Optional.of(m);
      }
      if (s.indexOf('/') < 0) {
        break;
      }
    }
    for (String s = q; ; s = s.substring(s.indexOf('/') + 1)) {
      ModelInfo best = null;
      int bestLength = -1;
      for (Map<String, ModelInfo> index : List.of(byKey, byName)) {
        for (Map.Entry<String, ModelInfo> e : index.entrySet()) {
          String k = e.getKey();
          if (k.length() > bestLength
              && s.length() > k.length()
              && s.startsWith(k)
              && isVersionSeparator(s.charAt(k.length()))) {
            best = e.getValue();
            bestLength = k.length();
          }
        }
      }
      if (best != null) {
        return Optional.of(best);
      }
      if (s.indexOf('/') < 0) {
        return Optional.empty();
      }
    }
  }

  /**
   * The model of that name, or the defaults for an unknown model (window {@value
   * #DEFAULT_CONTEXT_WINDOW}, max output {@value #DEFAULT_MAX_OUTPUT}, id = the given name).
   *
   * @throws IllegalArgumentException when the name is null or blank
   */
  public ModelInfo lookup(String model) {
    return find(model).orElseGet(() -> unknown(model));
  }

  /**
   * {@link #lookup(String)} with {@value #CONTEXT_LENGTH_ENV} from {@code env} applied.
   *
   * @param env the environment, e.g. {@code System.getenv()}; never null
   * @throws InvalidSettingException when {@value #CONTEXT_LENGTH_ENV} is set but not a whole number
   *     &gt; 0
   */
  public ModelInfo lookup(String model, Map<String, String> env) {
    return applyEnvironment(lookup(model), env);
  }

  /**
   * The model with {@value #CONTEXT_LENGTH_ENV} from {@code env} applied as its window (window
   * source {@value #CONTEXT_LENGTH_ENV}); unchanged when the variable is not set.
   *
   * @throws InvalidSettingException when the variable is set but not a whole number &gt; 0
   */
  public static ModelInfo applyEnvironment(ModelInfo model, Map<String, String> env) {
    String raw = env.get(CONTEXT_LENGTH_ENV);
    if (raw == null) {
      return model;
    }
    return model.withContextWindow(parseContextLength(raw, CONTEXT_LENGTH_ENV), CONTEXT_LENGTH_ENV);
  }

  /**
   * Parses a context length: a whole number of tokens &gt; 0 ({@code 32768}, {@code 32_768}, {@code
   * 1e6} and {@code 32768.0} are accepted).
   *
   * @param raw the value as given
   * @param source where it came from, for the message
   * @throws InvalidSettingException naming value and source when it is empty, not a number, not
   *     finite, not &gt; 0 or not whole
   */
  public static long parseContextLength(String raw, String source) {
    String setting = "context length";
    BigDecimal v = PositiveNumber.parse(setting, raw, source, "must be a whole number of tokens");
    try {
      return v.longValueExact();
    } catch (ArithmeticException e) {
      String problem =
          v.stripTrailingZeros().scale() > 0 ? "must be a whole number of tokens" : "is too large";
      throw new InvalidSettingException(setting, raw, source, problem);
    }
  }

  /** A copy with these models added; a model with an existing id replaces that entry in place. */
  public ModelCatalog with(Collection<ModelInfo> added) {
    LinkedHashMap<String, ModelInfo> all = new LinkedHashMap<>();
    for (ModelInfo m : models) {
      all.put(m.id(), m);
    }
    for (ModelInfo m : added) {
      all.put(m.id(), m);
    }
    return new ModelCatalog(new ArrayList<>(all.values()), aliases);
  }

  /** A copy with these models added (see {@link #with(Collection)}). */
  public ModelCatalog with(ModelInfo... added) {
    return with(List.of(added));
  }

  /**
   * A copy in which {@code model} has this window and/or output limit: the entry it resolves to (or
   * the unknown-model defaults) is copied under the given name with the values replaced, so an
   * exact lookup of that name finds it. Used for {@code [models."provider/model"] context_window /
   * max_output} in user configuration.
   *
   * @param model the name as configured
   * @param window the new window, if any
   * @param maxOutput the new output limit, if any
   * @param source where the values came from; becomes the window source when a window is given
   */
  public ModelCatalog withOverride(
      String model, OptionalLong window, OptionalInt maxOutput, String source) {
    ModelInfo m = lookup(model).withId(model);
    if (window.isPresent()) {
      m = m.withContextWindow(window.getAsLong(), source);
    }
    if (maxOutput.isPresent()) {
      m = m.withMaxOutputTokens(maxOutput.getAsInt());
    }
    return with(m);
  }

  private static ModelInfo unknown(String model) {
    return ModelInfo.guessed(model, DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT, SOURCE_DEFAULT);
  }

  private static boolean isVersionSeparator(char c) {
    return c == '-' || c == ':' || c == '@';
  }

  private static long parseWhole(String field, String column) {
    long v = Long.parseLong(field.replace("_", ""));
    if (v < 0) {
      throw new IllegalArgumentException(column + " must be >= 0, got " + field);
    }
    return v;
  }

  private static boolean parseYesNo(String field) {
    return switch (field.toLowerCase(Locale.ROOT)) {
      case "yes", "true" -> true;
      case "no", "false" -> false;
      default ->
          throw new IllegalArgumentException("validated must be yes or no, got \"" + field + "\"");
    };
  }

  private static final class BuiltIn {
    static final ModelCatalog CATALOG = load();

    private static ModelCatalog load() {
      return parse(BuiltInResource.read(ModelCatalog.class, RESOURCE, "model catalog"), RESOURCE);
    }
  }
}
