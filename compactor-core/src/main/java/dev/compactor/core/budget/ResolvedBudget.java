package dev.compactor.core.budget;

import dev.compactor.core.Bounds;
import java.util.Objects;

/**
 * A resolved context budget: the token count at which compaction fires, and where it came from.
 *
 * @param tokens the budget in tokens, &ge; 1 and never above the ceiling {@code window − maxOutput
 *     − headroom} (or {@code max(1, min(1000, window))} when that is &le; 0)
 * @param source the layer that set it: e.g. {@code --context-budget}, {@code
 *     COMPACTOR_CONTEXT_BUDGET}, {@code models."openai/gpt-4o".context_budget in
 *     ~/.config/compactor/config.toml}, {@code [context] budget in ./compactor.toml}, {@code model
 *     metadata}, {@code default}
 * @param window the context window used
 * @param windowSource where the window came from (see {@link
 *     dev.compactor.core.catalog.ModelInfo#windowSource()})
 * @param maxOutput the output tokens reserved
 * @param requested the tokens the winning layer asked for before clamping ({@code tokens} itself
 *     for the default)
 */
public record ResolvedBudget(
    long tokens, String source, long window, String windowSource, int maxOutput, long requested) {
  public ResolvedBudget {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(windowSource, "windowSource");
    Bounds.atLeast(1, tokens, "budget");
  }

  /** A budget that was used as asked. */
  public ResolvedBudget(
      long tokens, String source, long window, String windowSource, int maxOutput) {
    this(tokens, source, window, windowSource, maxOutput, tokens);
  }

  /** Whether the asked-for value was changed to fit: lowered to the ceiling or raised to 1. */
  public boolean clamped() {
    return requested != tokens;
  }
}
