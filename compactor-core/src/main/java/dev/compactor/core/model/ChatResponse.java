package dev.compactor.core.model;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import java.util.Objects;

/**
 * The answer to one {@link ChatRequest}.
 *
 * <p>The assistant {@code message} carries the text, tool calls (parallel calls in order) and
 * reasoning blocks (verbatim, with signatures, to be passed back unchanged), and {@code metadata}
 * with {@code model} (as the provider reported it), {@code provider}, {@code usage} and {@code
 * input} (the fingerprint of the request's messages, see {@link InputFingerprints}); compaction
 * items, when any, ride along in {@code metadata.extra} (see {@link ProviderCompaction}).
 *
 * @param message the assistant message, never null
 * @param usage provider-reported usage, or null when the provider reported none
 * @param finishReason why generation stopped, never null
 * @param rawFinishReason the provider's own value ({@code stop}, {@code end_turn}, …), or null
 * @param compaction what the provider compacted or edited, never null
 * @param responseId the provider's response id, or null
 * @param model the model that answered as the provider named it, or null
 */
public record ChatResponse(
    Message message,
    Usage usage,
    FinishReason finishReason,
    String rawFinishReason,
    ProviderCompaction compaction,
    String responseId,
    String model) {
  public ChatResponse {
    Objects.requireNonNull(message, "message");
    if (message.role() != Role.ASSISTANT) {
      throw new IllegalArgumentException(
          "a chat response carries an assistant message, not " + message.role().wireName());
    }
    finishReason = finishReason == null ? FinishReason.OTHER : finishReason;
    compaction = compaction == null ? ProviderCompaction.NONE : compaction;
  }

  /** The assistant text. */
  public String text() {
    return message.content();
  }

  /** Whether the model asked for tool calls. */
  public boolean hasToolCalls() {
    return message.hasToolCalls();
  }
}
