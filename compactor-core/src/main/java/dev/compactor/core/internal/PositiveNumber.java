package dev.compactor.core.internal;

import dev.compactor.core.catalog.InvalidSettingException;
import java.math.BigDecimal;
import java.util.Locale;

/**
 * Reads a setting that is a number &gt; 0, as written by a person: surrounding white space and
 * {@code _} digit separators are ignored, exponents and fractions accepted ({@code 32_768}, {@code
 * 1e6}, {@code 0.5}). The callers check what else the setting needs (whole, at most some size).
 */
public final class PositiveNumber {
  private PositiveNumber() {}

  /**
   * {@code raw} as an exact decimal &gt; 0.
   *
   * @param setting the setting's name, for the error
   * @param raw the value as given, possibly null
   * @param source where it came from, for the error
   * @param notANumber the problem to report when it is not a number at all, e.g. {@code "must be a
   *     whole number of tokens"}
   * @throws InvalidSettingException naming value and source when it is empty, not a number, not
   *     finite, or not &gt; 0
   */
  public static BigDecimal parse(String setting, String raw, String source, String notANumber) {
    String s = raw == null ? "" : raw.strip().replace("_", "");
    if (s.isEmpty()) {
      throw new InvalidSettingException(setting, raw, source, "must not be empty");
    }
    BigDecimal v;
    try {
      v = new BigDecimal(s);
    } catch (NumberFormatException e) {
      String lower = s.toLowerCase(Locale.ROOT);
      String problem =
          lower.contains("inf") || lower.contains("nan") ? "must be a finite number" : notANumber;
      throw new InvalidSettingException(setting, raw, source, problem);
    }
    if (v.signum() <= 0) {
      throw new InvalidSettingException(setting, raw, source, "must be > 0");
    }
    return v;
  }
}
