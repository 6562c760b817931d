package dev.compactor.core.model;

import java.util.Objects;

/**
 * A context edit the provider applied before answering (Anthropic {@code
 * context_management.applied_edits}).
 *
 * @param type the edit type, e.g. {@code clear_tool_uses_20250919}
 * @param clearedToolUses tool uses cleared (0 when not reported)
 * @param clearedThinkingTurns thinking turns cleared (0 when not reported)
 * @param clearedInputTokens input tokens freed (0 when not reported)
 */
public record AppliedEdit(
    String type, long clearedToolUses, long clearedThinkingTurns, long clearedInputTokens) {
  public AppliedEdit {
    Objects.requireNonNull(type, "applied edit type");
  }
}
