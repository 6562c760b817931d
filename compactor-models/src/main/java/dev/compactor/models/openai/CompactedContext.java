package dev.compactor.models.openai;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.CompactionItem;
import java.util.List;
import java.util.Objects;

/**
 * The result of a standalone compaction ({@code POST /v1/responses/compact}): the conversation to
 * continue from. OpenAI returns the user messages followed by one opaque compaction item; here the
 * item rides on an empty assistant message (see {@link
 * dev.compactor.core.model.ProviderCompaction}), so {@link #messages()} can replace the compacted
 * conversation as is and the next {@link OpenAiResponsesModel} request sends the item back in
 * place.
 *
 * @param id the compaction's id
 * @param messages the compacted conversation, in order
 * @param items the compaction items among them
 * @param usage what the compaction pass cost, or null when not reported
 */
public record CompactedContext(
    String id, List<Message> messages, List<CompactionItem> items, Usage usage) {
  public CompactedContext {
    messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
    items = List.copyOf(Objects.requireNonNull(items, "items"));
  }
}
