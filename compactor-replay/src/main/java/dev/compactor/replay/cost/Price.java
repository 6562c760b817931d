package dev.compactor.replay.cost;

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

  /** USD for {@code tokens} uncached input tokens. */
  public double input(double tokens) {
    return tokens * inputPerMillion / 1e6;
  }

  /** USD for {@code tokens} output tokens. */
  public double output(double tokens) {
    return tokens * outputPerMillion / 1e6;
  }
}
