package dev.compactor.models;

import dev.compactor.core.model.RequestExtension;

/**
 * Asks the OpenAI Responses API to compact server-side once the prompt reaches {@code
 * compactThreshold} tokens: sent as {@code context_management: [{type: "compaction",
 * compact_threshold}]}. A {@link dev.compactor.core.model.ChatRequest} extension that only {@link
 * dev.compactor.models.openai.OpenAiResponsesModel} honours; the other clients reject a request
 * carrying it.
 *
 * <pre>{@code
 * ChatRequest req = ChatRequest.builder()
 *     .messages(history)
 *     .extension(new ResponsesCompaction(200_000))
 *     .build();
 * }</pre>
 *
 * @param compactThreshold the token count at which the provider compacts, &ge; {@value
 *     #MIN_COMPACT_THRESHOLD}
 */
public record ResponsesCompaction(int compactThreshold) implements RequestExtension {
  /** The smallest {@code compactThreshold} OpenAI accepts. */
  public static final int MIN_COMPACT_THRESHOLD = 1000;

  public ResponsesCompaction {
    if (compactThreshold < MIN_COMPACT_THRESHOLD) {
      throw new IllegalArgumentException(
          "compactThreshold must be >= "
              + MIN_COMPACT_THRESHOLD
              + " tokens, got "
              + compactThreshold);
    }
  }
}
