package dev.compactor.replay.cost;

import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.ModelPrice;
import dev.compactor.core.catalog.PriceTable;
import java.util.Objects;

/**
 * What one model charges, in USD per million tokens.
 *
 * @param model the price table entry that matched ({@code provider/model} or {@code default})
 * @param inputPerMillion uncached input tokens
 * @param outputPerMillion output tokens (reasoning included)
 */
public record Price(String model, double inputPerMillion, double outputPerMillion) {
  public Price {
    Objects.requireNonNull(model, "model");
    if (!(inputPerMillion >= 0) || !(outputPerMillion >= 0)) {
      throw new IllegalArgumentException(
          "prices of "
              + model
              + " must be finite and >= 0, got "
              + inputPerMillion
              + " / "
              + outputPerMillion);
    }
  }

  /**
   * The price of {@code model} in {@code table}, with the row that matched.
   *
   * @param model the model name, or null for the table's default
   * @throws CompactorException when nothing in the table prices the model (a table without a
   *     {@value PriceTable#DEFAULT} row)
   */
  public static Price of(PriceTable table, String model) {
    String entry =
        table
            .entry(model)
            .orElseThrow(
                () ->
                    new CompactorException(
                        "the price table has no price for "
                            + model
                            + " and no \""
                            + PriceTable.DEFAULT
                            + "\" line"));
    ModelPrice p = table.find(model).orElseThrow();
    return new Price(entry, p.input().doubleValue(), p.output().doubleValue());
  }

  /** USD for {@code tokens} uncached input tokens. */
  public double input(double tokens) {
    return tokens * inputPerMillion / 1e6;
  }

  /** USD for {@code tokens} output tokens. */
  public double output(double tokens) {
    return tokens * outputPerMillion / 1e6;
  }
}
