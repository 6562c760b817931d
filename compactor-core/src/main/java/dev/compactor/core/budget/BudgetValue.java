package dev.compactor.core.budget;

import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.internal.PositiveNumber;
import java.math.BigDecimal;
import java.util.Objects;

/**
 * A valid context budget: a fraction of the window ({@code 0 < v <= 1}) or a whole number of tokens
 * ({@code v > 1}).
 *
 * @param value the number
 * @param source where it came from
 */
public record BudgetValue(double value, String source) {

  public BudgetValue {
    Objects.requireNonNull(source, "source");
    if (!Double.isFinite(value) || value <= 0 || (value > 1 && value != Math.floor(value))) {
      throw new InvalidSettingException(
          ContextBudget.SETTING, format(value), source, problemFor(value));
    }
  }

  /**
   * Parses a budget as written: {@code 0.85}, {@code 1}, {@code 300000}, {@code 300_000}, {@code
   * 3e5}, {@code 300000.0}.
   *
   * @throws InvalidSettingException naming value and source when it is empty, not a number, not
   *     finite, not &gt; 0, or above 1 with a fractional part ({@code 1.5}, {@code 300000.5})
   */
  public static BudgetValue parse(String raw, String source) {
    BigDecimal v =
        PositiveNumber.parse(
            ContextBudget.SETTING,
            raw,
            source,
            "must be a number: a fraction <= 1 of the window or a whole number of tokens > 1");
    if (v.compareTo(BigDecimal.ONE) > 0) {
      if (v.stripTrailingZeros().scale() > 0) {
        throw new InvalidSettingException(
            ContextBudget.SETTING,
            raw,
            source,
            "must be a fraction <= 1 of the window or a whole number of tokens");
      }
      if (v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
        throw new InvalidSettingException(ContextBudget.SETTING, raw, source, "is too large");
      }
    }
    return new BudgetValue(v.doubleValue(), source);
  }

  public boolean isFraction() {
    return value <= 1;
  }

  /** The budget in tokens for a window, before clamping: {@code floor(v × window)} or {@code v}. */
  public long tokensFor(long window) {
    return isFraction() ? (long) Math.floor(value * window) : (long) value;
  }

  private static String problemFor(double v) {
    if (!Double.isFinite(v)) {
      return "must be a finite number";
    }
    if (v <= 0) {
      return "must be > 0";
    }
    return "must be a fraction <= 1 of the window or a whole number of tokens";
  }

  private static String format(double v) {
    return v == Math.floor(v) && Double.isFinite(v) && Math.abs(v) < 1e15
        ? Long.toString((long) v) + (v <= 1 ? ".0" : "")
        : Double.toString(v);
  }
}
