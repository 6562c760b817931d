package dev.compactor.replay.cost;

import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.PriceTable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The prices the replay bills model calls at: a {@link PriceTable} (the one price table, in either
 * of its formats) that has a {@value PriceTable#DEFAULT} row, so every call has a cost. The
 * built-in one is the resource {@code dev/compactor/replay/cost/prices.tsv}: public list prices of
 * input and output (prompt caching is modelled by {@link CacheModel}, alike for every model).
 */
public final class ScorecardPrices {
  private static final String RESOURCE = "prices.tsv";

  private ScorecardPrices() {}

  /** The built-in scorecard prices. */
  public static PriceTable builtIn() {
    return Holder.BUILT_IN;
  }

  /**
   * Reads a price table file.
   *
   * @throws CompactorException naming the file (and line) when it cannot be read, a line is
   *     invalid, or it has no {@value PriceTable#DEFAULT} line
   */
  public static PriceTable read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CompactorException("cannot read price table " + file + ": " + e.getMessage(), e);
    }
    return checked(
        PriceTable.parse(text, file.toString(), ModelCatalog.builtIn()), file.toString());
  }

  private static PriceTable checked(PriceTable table, String source) {
    if (!table.hasDefault()) {
      throw new CompactorException(
          "price table " + source + " has no \"" + PriceTable.DEFAULT + "\" line");
    }
    return table;
  }

  private static final class Holder {
    static final PriceTable BUILT_IN = load();

    private static PriceTable load() {
      return checked(
          PriceTable.resource(ScorecardPrices.class, RESOURCE, ModelCatalog.builtIn()), RESOURCE);
    }
  }
}
