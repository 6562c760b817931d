package dev.compactor.chat.pricing;

import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import dev.compactor.core.message.Usage;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Model prices for the chat task's {@code cost_usd}.
 *
 * <p>The built-in table is the resource {@code dev/compactor/chat/pricing/prices.tsv} (format in
 * its header): list prices in USD per million tokens for uncached input, cached input, cache writes
 * and output; {@code provider/*} rows price every model of a provider (local servers cost 0).
 *
 * <p><b>Lookup</b> of a model name, first match wins: the exact lower-cased name; the catalog id it
 * resolves to in the model catalog (so {@code gpt-4o-2024-08-06} and {@code
 * openrouter/openai/gpt-4o} find {@code openai/gpt-4o}); its {@code provider/*} row. A model none
 * of these finds has no price and its cost is unknown (empty), never guessed.
 *
 * <p>Immutable, thread-safe.
 *
 * <pre>{@code
 * Optional<BigDecimal> usd = PriceTable.builtIn().cost("openai/gpt-4o-mini", usage);
 * }</pre>
 */
public final class PriceTable {
  private static final String RESOURCE = "prices.tsv";

  private final Map<String, ModelPrice> prices;
  private final ModelCatalog catalog;

  private PriceTable(Map<String, ModelPrice> prices, ModelCatalog catalog) {
    this.prices = Map.copyOf(prices);
    this.catalog = catalog;
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
   * Parses a table in the {@code prices.tsv} format.
   *
   * @param source its name, for error messages
   * @throws CompactorException naming the source and line when a line is malformed
   */
  public static PriceTable parse(String text, String source, ModelCatalog catalog) {
    Map<String, ModelPrice> prices = new LinkedHashMap<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\\s+");
      String where = source + " line " + (i + 1);
      if (f.length != 5) {
        throw new CompactorException(
            where
                + ": expected 5 columns (id input cached_input cache_write output), got "
                + f.length);
      }
      try {
        BigDecimal input = new BigDecimal(f[1]);
        BigDecimal cached = f[2].equals("-") ? input : new BigDecimal(f[2]);
        BigDecimal write = f[3].equals("-") ? input : new BigDecimal(f[3]);
        prices.put(
            f[0].toLowerCase(Locale.ROOT),
            new ModelPrice(input, cached, write, new BigDecimal(f[4])));
      } catch (IllegalArgumentException e) {
        throw new CompactorException(where + ": " + e.getMessage(), e);
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

  /** The price of a model by the lookup rules of the class comment, or empty. */
  public Optional<ModelPrice> find(String model) {
    if (model == null || model.isBlank()) {
      return Optional.empty();
    }
    String name = model.strip().toLowerCase(Locale.ROOT);
    ModelPrice p = prices.get(name);
    if (p != null) {
      return Optional.of(p);
    }
    Optional<ModelInfo> info = catalog.find(name);
    if (info.isPresent()) {
      p = prices.get(info.get().id());
      if (p != null) {
        return Optional.of(p);
      }
    }
    int slash = name.indexOf('/');
    if (slash > 0) {
      p = prices.get(name.substring(0, slash) + "/*");
    }
    return Optional.ofNullable(p);
  }

  /** The cost of {@code usage} on {@code model} in USD, or empty when the model has no price. */
  public Optional<BigDecimal> cost(String model, Usage usage) {
    if (usage == null) {
      return Optional.empty();
    }
    return find(model).map(p -> p.cost(usage));
  }

  private static final class BuiltIn {
    static final PriceTable TABLE = load();

    private static PriceTable load() {
      try (InputStream in = PriceTable.class.getResourceAsStream(RESOURCE)) {
        if (in == null) {
          throw new CompactorException("built-in price table resource " + RESOURCE + " missing");
        }
        return parse(
            new String(in.readAllBytes(), StandardCharsets.UTF_8),
            RESOURCE,
            ModelCatalog.builtIn());
      } catch (IOException e) {
        throw new CompactorException("cannot read built-in price table " + RESOURCE, e);
      }
    }
  }
}
