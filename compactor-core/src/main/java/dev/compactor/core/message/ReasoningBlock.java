package dev.compactor.core.message;

import java.util.Objects;

/**
 * A reasoning ("thinking") block of an assistant message. Kept verbatim: no strategy rewrites it,
 * because providers verify signatures and reject altered blocks.
 *
 * @param type the provider's block type, e.g. {@code thinking}, {@code redacted_thinking}, or
 *     {@code think} for inline {@code <think>} text
 * @param text the reasoning text (for redacted blocks, the opaque data)
 * @param signature the provider's signature, or null
 */
public record ReasoningBlock(String type, String text, String signature) {
  public ReasoningBlock {
    Objects.requireNonNull(type, "reasoning block type");
    text = text == null ? "" : text;
  }
}
