package dev.compactor.core.catalog;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Usage;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Model prices in USD per million tokens: the chat task's {@code cost_usd} and the replay
 * scorecard's costs both read one of these.
 *
 * <p><b>Format</b> (the built-in resource {@code dev/compactor/core/catalog/prices.tsv} documents
 * it in its header): one model a line, columns separated by whitespace, {@code #} starts a comment.
 * Either five columns, {@code id input cached_input cache_write output} ({@code -} in a cache
 * column means "same as input"), or three, {@code id input output} (the cache columns are then the
 * input price: a table without cache prices, as the scorecard's, whose caching is a model of its
 * own). The id is {@code provider/model}, {@code provider/*} for every model of a provider (local
 * servers cost 0), or {@code default} for every model nothing else finds.
 *
 * <p><b>Lookup</b> of a model name (trimmed, lower-cased), first match wins: the exact id; the
 * catalog id it resolves to in the model catalog (so {@code gpt-4o-2024-08-06} and {@code
 * openrouter/openai/gpt-4o} find {@code openai/gpt-4o}); its {@code provider/*} row; the bare name
 * (after the last {@code /}) under any provider; the longest listed bare name the name starts with,
 * followed by {@code -}, {@code :} or {@code @} (dated and tagged versions the catalog does not
 * know); the {@code default} row. A model none of these finds has no price: its cost is unknown
 * (empty), never guessed.
 *
 * <p>Immutable, thread-safe.
 *
 * <pre>{@code
 * Optional<BigDecimal> usd = PriceTable.builtIn().cost("openai/gpt-4o-mini", usage);
 * }</pre>
 */
public final class PriceTable {
  /** The id of the row that prices every model nothing else finds. */
  public static final String DEFAULT = "default";

  private static final String RESOURCE = "prices.tsv";

  private final Map<String, ModelPrice> prices;
  private final Map<String, String> byBareName = new LinkedHashMap<>();
  private final ModelCatalog catalog;

  private PriceTable(Map<String, ModelPrice> prices, ModelCatalog catalog) {
    this.prices = Map.copyOf(prices);
    this.catalog = catalog;
    prices.keySet().stream()
        .filter(id -> !id.equals(DEFAULT) && !id.endsWith("/*"))
        .forEach(id -> byBareName.putIfAbsent(id.substring(id.lastIndexOf('/') + 1), id));
  }

  /** The built-in table, resolving names through the built-in model catalog. */
  public static PriceTable builtIn() {
    return BuiltIn.TABLE;
  }

  /** A table with no prices: every cost is unknown. */
  public static PriceTable empty() {
    return new PriceTable(Map.of(), ModelCatalog.empty());
  }

  /**
   * Parses a table that ships as a class-path resource, found as {@code owner} finds its resources.
   *
   * @param catalog resolves names the table does not list exactly
   * @throws CompactorException naming the resource when it is missing, cannot be read, or is
   *     malformed
   */
  public static PriceTable resource(Class<?> owner, String resource, ModelCatalog catalog) {
    return parse(BuiltInResource.read(owner, resource, "price table"), resource, catalog);
  }

  /**
   * Parses a table (see the class comment for the format).
   *
   * @param source its name, for error messages
   * @param catalog resolves names the table does not list exactly
   * @throws CompactorException naming the source and line when a line is malformed or an id is
   *     listed twice
   */
  public static PriceTable parse(String text, String source, ModelCatalog catalog) {
    Map<String, ModelPrice> prices = new LinkedHashMap<>();
    for (TableRow row : TableRow.parse(text, source)) {
      String line = row.line();
      String where = row.where();
      String[] f = row.fields();
      if (f.length != 5 && f.length != 3) {
        throw new CompactorException(
            where
                + ": expected 5 columns (id input cached_input cache_write output) or 3 (id input"
                + " output), got "
                + f.length
                + " in \""
                + line
                + "\"");
      }
      ModelPrice price;
      try {
        BigDecimal input = new BigDecimal(f[1]);
        if (f.length == 3) {
          price = new ModelPrice(input, input, input, new BigDecimal(f[2]));
        } else {
          BigDecimal cached = f[2].equals("-") ? input : new BigDecimal(f[2]);
          BigDecimal write = f[3].equals("-") ? input : new BigDecimal(f[3]);
          price = new ModelPrice(input, cached, write, new BigDecimal(f[4]));
        }
      } catch (NumberFormatException e) {
        throw new CompactorException(
            where
                + ": invalid price in \""
                + line
                + "\": prices must be numbers (dollars per million tokens)",
            e);
      } catch (IllegalArgumentException e) {
        throw new CompactorException(
            where + ": invalid price in \"" + line + "\": " + e.getMessage(), e);
      }
      String id = f[0].toLowerCase(Locale.ROOT);
      if (prices.put(id, price) != null) {
        throw new CompactorException(where + ": " + id + " listed twice");
      }
    }
    return new PriceTable(prices, catalog);
  }

  /** A copy with this model's price set (replacing any). */
  public PriceTable with(String model, ModelPrice price) {
    Map<String, ModelPrice> m = new LinkedHashMap<>(prices);
    m.put(model.strip().toLowerCase(Locale.ROOT), price);
    return new PriceTable(m, catalog);
  }

  /** Whether the table has a {@value #DEFAULT} row, so that every model has a price. */
  public boolean hasDefault() {
    return prices.containsKey(DEFAULT);
  }

  /** The price of a model by the lookup rules of the class comment, or empty. */
  public Optional<ModelPrice> find(String model) {
    return entry(model).map(prices::get);
  }

  /**
   * The id of the row that prices {@code model} (by the lookup rules of the class comment): e.g.
   * {@code openai/gpt-4o} for {@code gpt-4o-2024-08-06}, {@code ollama/*}, {@value #DEFAULT}; or
   * empty.
   */
  public Optional<String> entry(String model) {
    if (model == null || model.isBlank()) {
      return prices.containsKey(DEFAULT) ? Optional.of(DEFAULT) : Optional.empty();
    }
    String name = model.strip().toLowerCase(Locale.ROOT);
    if (prices.containsKey(name)) {
      return Optional.of(name);
    }
    Optional<ModelInfo> info = catalog.find(name);
    if (info.isPresent() && prices.containsKey(info.get().id())) {
      return Optional.of(info.get().id());
    }
    int slash = name.indexOf('/');
    if (slash > 0 && prices.containsKey(name.substring(0, slash) + "/*")) {
      return Optional.of(name.substring(0, slash) + "/*");
    }
    String bare = name.substring(name.lastIndexOf('/') + 1);
    String id = byBareName.get(bare);
    if (id != null) {
      return Optional.of(id);
    }
    String best = null;
    int bestLength = -1;
    for (Map.Entry<String, String> e : byBareName.entrySet()) {
      String n = e.getKey();
      if (bare.length() > n.length()
          && bare.startsWith(n)
          && "-:@".indexOf(bare.charAt(n.length())) >= 0
          && n.length() > bestLength) {
        best = e.getValue();
        bestLength = n.length();
      }
    }
    if (best != null) {
      return Optional.of(best);
    }
    return prices.containsKey(DEFAULT) ? Optional.of(DEFAULT) : Optional.empty();
  }

  /** The cost of {@code usage} on {@code model} in USD, or empty when the model has no price. */
  public Optional<BigDecimal> cost(String model, Usage usage) {
    if (usage == null) {
      return Optional.empty();
    }
    return find(model).map(p -> p.cost(usage));
  }

  private static final class BuiltIn {
    static final PriceTable TABLE = resource(PriceTable.class, RESOURCE, ModelCatalog.builtIn());
  }
}
