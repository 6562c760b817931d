package dev.compactor.core.catalog;

import dev.compactor.core.message.Usage;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;

/**
 * What one model costs, in USD per million tokens.
 *
 * @param input uncached input tokens
 * @param cachedInput input tokens read from the prompt cache
 * @param cacheWrite input tokens written to the prompt cache
 * @param output output tokens
 */
public record ModelPrice(
    BigDecimal input, BigDecimal cachedInput, BigDecimal cacheWrite, BigDecimal output) {
  private static final BigDecimal MILLION = BigDecimal.valueOf(1_000_000);

  /** Decimal places of a computed cost. */
  public static final int SCALE = 9;

  public ModelPrice {
    for (BigDecimal v : new BigDecimal[] {input, cachedInput, cacheWrite, output}) {
      Objects.requireNonNull(v, "price");
      if (v.signum() < 0) {
        throw new IllegalArgumentException("a price must be >= 0, got " + v);
      }
    }
  }

  /** The cost of {@code usage} in USD, rounded half-up to {@value #SCALE} decimal places. */
  public BigDecimal cost(Usage usage) {
    BigDecimal micro =
        input
            .multiply(BigDecimal.valueOf(usage.input()))
            .add(cachedInput.multiply(BigDecimal.valueOf(usage.cacheRead())))
            .add(cacheWrite.multiply(BigDecimal.valueOf(usage.cacheWrite())))
            .add(output.multiply(BigDecimal.valueOf(usage.output())));
    return micro.divide(MILLION, SCALE, RoundingMode.HALF_UP);
  }
}
