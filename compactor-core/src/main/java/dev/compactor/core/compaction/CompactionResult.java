package dev.compactor.core.compaction;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of {@link ContextProvider#compress}.
 *
 * @param messages the compacted message list (a complete list, not a lazy stream)
 * @param sourceDigest SHA-256 hex over role+content of the source messages ({@link
 *     Digests#roleAndContent}); invalidated when the source changes
 * @param coveredThrough 0-based index of the last source message covered, -1 when nothing was
 *     processed
 * @param limitations human-readable notes about coverage gaps or lossy steps (e.g. "checkpoint cut
 *     to fit the budget")
 * @param provenance for each result message with a new id, the ids of the source messages it stands
 *     for (a stub: the one tool result it replaces; a checkpoint: every message it summarizes).
 *     Result messages that keep a source id must be equal to that source message.
 */
public record CompactionResult(
    List<Message> messages,
    String sourceDigest,
    int coveredThrough,
    List<String> limitations,
    Map<MessageId, List<MessageId>> provenance) {

  public CompactionResult {
    messages = List.copyOf(messages);
    Objects.requireNonNull(sourceDigest, "sourceDigest");
    limitations = limitations == null ? List.of() : List.copyOf(limitations);
    Map<MessageId, List<MessageId>> p = new LinkedHashMap<>();
    if (provenance != null) {
      provenance.forEach((k, v) -> p.put(k, List.copyOf(v)));
    }
    provenance = java.util.Collections.unmodifiableMap(p);
    if (coveredThrough < -1) {
      throw new IllegalArgumentException("coveredThrough must be >= -1, got " + coveredThrough);
    }
  }

  /** A result covering the whole source: digest computed, {@code coveredThrough = size - 1}. */
  public static CompactionResult of(
      List<Message> source,
      List<Message> messages,
      List<String> limitations,
      Map<MessageId, List<MessageId>> provenance) {
    return new CompactionResult(
        messages, Digests.roleAndContent(source), source.size() - 1, limitations, provenance);
  }

  /** The source returned unchanged. */
  public static CompactionResult unchanged(List<Message> source) {
    return of(source, source, List.of(), Map.of());
  }
}
