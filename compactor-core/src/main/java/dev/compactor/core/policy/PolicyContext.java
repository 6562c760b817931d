package dev.compactor.core.policy;

import dev.compactor.core.Bounds;
import dev.compactor.core.compaction.CompressionConfig;
import java.util.Objects;
import java.util.Optional;

/**
 * What a policy needs to know about the next model call.
 *
 * @param model the model the next request goes to ({@code provider/model})
 * @param budgetTokens the resolved context budget
 * @param base compression options (counter, archive, keepHead, maxToolResultTokens, extra); the
 *     policy sets the limit and target itself
 * @param compactInstructions project-wide {@code compact_instructions}, if any
 * @param keepRecentTokens tokens of recent history a summary keeps verbatim
 */
public record PolicyContext(
    String model,
    long budgetTokens,
    CompressionConfig base,
    Optional<String> compactInstructions,
    long keepRecentTokens) {

  public static final long DEFAULT_KEEP_RECENT_TOKENS = 20_000;

  public PolicyContext {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(base, "base");
    Bounds.atLeast(1, budgetTokens, "budgetTokens");
    Bounds.atLeast(0, keepRecentTokens, "keepRecentTokens");
    compactInstructions =
        compactInstructions == null
            ? Optional.empty()
            : compactInstructions.filter(s -> !s.isBlank());
  }

  public static PolicyContext of(String model, long budgetTokens, CompressionConfig base) {
    return new PolicyContext(
        model, budgetTokens, base, Optional.empty(), DEFAULT_KEEP_RECENT_TOKENS);
  }

  public PolicyContext withInstructions(String instructions) {
    return new PolicyContext(
        model, budgetTokens, base, Optional.ofNullable(instructions), keepRecentTokens);
  }

  public PolicyContext withKeepRecentTokens(long tokens) {
    return new PolicyContext(model, budgetTokens, base, compactInstructions, tokens);
  }

  /** Budget as an int limit for {@link CompressionConfig} (clamped). */
  int limit() {
    return (int) Math.min(Integer.MAX_VALUE, budgetTokens);
  }
}
