package dev.compactor.chat.base;

import dev.compactor.core.message.Usage;
import java.math.BigDecimal;
import java.util.Objects;

/**
 * The usage and cost of one model call.
 *
 * @param model the model called
 * @param usage what the provider reported (zeros when it reported nothing)
 * @param costUsd the cost in USD, or null when the model has no known price
 */
public record CallUsage(String model, Usage usage, BigDecimal costUsd) {
  public CallUsage {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(usage, "usage");
  }

  /** Prompt tokens: uncached input plus cache reads and writes. */
  public long promptTokens() {
    return usage.totalInput();
  }

  /** Completion tokens (reasoning included). */
  public long completionTokens() {
    return usage.output();
  }
}
