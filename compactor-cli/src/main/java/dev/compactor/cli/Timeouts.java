package dev.compactor.cli;

import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.models.ChatModelOptions;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code --timeout}: how long one model call may take, retries included. */
final class Timeouts {
  private Timeouts() {}

  static final String DESCRIPTION =
      "Longest a model call may take, every retry and wait included: seconds (90) or with a unit"
          + " (500ms, 90s, 2m). Default 2m.";

  private static final Pattern VALUE =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|min)?", Pattern.CASE_INSENSITIVE);

  /**
   * The timeout {@code value} gives, or the default for null.
   *
   * @throws InvalidSettingException naming the value and {@code option} when it is not a positive
   *     duration
   */
  static Duration parse(String value, String option) {
    if (value == null) {
      return ChatModelOptions.DEFAULT_TIMEOUT;
    }
    Matcher m = VALUE.matcher(value.strip());
    if (!m.matches()) {
      throw new InvalidSettingException(
          "timeout", value, option, "must be seconds (90) or a number with ms, s or m (2m)");
    }
    double n = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT);
    double ms =
        switch (unit) {
          case "ms" -> n;
          case "m", "min" -> n * 60_000;
          default -> n * 1000;
        };
    if (ms < 1 || ms > 24 * 3_600_000.0) {
      throw new InvalidSettingException(
          "timeout", value, option, "must be between 1 ms and 24 hours");
    }
    return Duration.ofMillis((long) ms);
  }
}
