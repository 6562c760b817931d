package dev.compactor.core.compaction;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of {@link ContextProvider#compress}: an immutable value (equal when all five
 * components are equal).
 *
 * <p>Components:
 *
 * <ul>
 *   <li>{@code messages}: the compacted message list (a complete list, not a lazy stream);
 *   <li>{@code sourceDigest}: SHA-256 hex over role+content of the source messages ({@link
 *       Digests#roleAndContent}); invalidated when the source changes. For results made with {@link
 *       #of} it is computed on first use: hashing every source text (7 MB on a long agent log) on
 *       every compaction would cost more than the compaction, and most callers never ask;
 *   <li>{@code coveredThrough}: 0-based index of the last source message covered, -1 when nothing
 *       was processed;
 *   <li>{@code limitations}: human-readable notes about coverage gaps or lossy steps (e.g.
 *       "checkpoint cut to fit the budget");
 *   <li>{@code provenance}: for each result message with a new id, the ids of the source messages
 *       it stands for (a stub: the one tool result it replaces; a checkpoint: every message it
 *       summarizes). Result messages that keep a source id must be equal to that source message.
 * </ul>
 *
 * Thread-safe.
 */
public final class CompactionResult {
  private final List<Message> messages;
  private final List<Message> source; // for the lazy digest; null once it is known
  private volatile String sourceDigest;
  private final int coveredThrough;
  private final List<String> limitations;
  private final Map<MessageId, List<MessageId>> provenance;

  /**
   * A result with a known digest.
   *
   * @throws NullPointerException when {@code messages} or {@code sourceDigest} is null
   * @throws IllegalArgumentException when {@code coveredThrough < -1}
   */
  public CompactionResult(
      List<Message> messages,
      String sourceDigest,
      int coveredThrough,
      List<String> limitations,
      Map<MessageId, List<MessageId>> provenance) {
    this(
        messages,
        null,
        Objects.requireNonNull(sourceDigest, "sourceDigest"),
        coveredThrough,
        limitations,
        provenance);
  }

  private CompactionResult(
      List<Message> messages,
      List<Message> source,
      String sourceDigest,
      int coveredThrough,
      List<String> limitations,
      Map<MessageId, List<MessageId>> provenance) {
    this.messages = List.copyOf(messages);
    this.source = source;
    this.sourceDigest = sourceDigest;
    this.limitations = limitations == null ? List.of() : List.copyOf(limitations);
    Map<MessageId, List<MessageId>> p = new LinkedHashMap<>();
    if (provenance != null) {
      provenance.forEach((k, v) -> p.put(k, List.copyOf(v)));
    }
    this.provenance = Collections.unmodifiableMap(p);
    if (coveredThrough < -1) {
      throw new IllegalArgumentException("coveredThrough must be >= -1, got " + coveredThrough);
    }
    this.coveredThrough = coveredThrough;
  }

  /**
   * A result covering the whole source: {@code coveredThrough = size - 1}, the digest computed on
   * first use.
   */
  public static CompactionResult of(
      List<Message> source,
      List<Message> messages,
      List<String> limitations,
      Map<MessageId, List<MessageId>> provenance) {
    return new CompactionResult(
        messages, List.copyOf(source), null, source.size() - 1, limitations, provenance);
  }

  /** The source returned unchanged. */
  public static CompactionResult unchanged(List<Message> source) {
    return of(source, source, List.of(), Map.of());
  }

  /** The compacted message list (complete, unmodifiable). */
  public List<Message> messages() {
    return messages;
  }

  /** SHA-256 hex over role+content of the source messages ({@link Digests#roleAndContent}). */
  public String sourceDigest() {
    String d = sourceDigest;
    if (d == null) {
      d = Digests.roleAndContent(source);
      sourceDigest = d;
    }
    return d;
  }

  /** 0-based index of the last source message covered, -1 when nothing was processed. */
  public int coveredThrough() {
    return coveredThrough;
  }

  /** Notes about coverage gaps or lossy steps (unmodifiable). */
  public List<String> limitations() {
    return limitations;
  }

  /** For each result message with a new id, the source messages it stands for (unmodifiable). */
  public Map<MessageId, List<MessageId>> provenance() {
    return provenance;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CompactionResult r
        && coveredThrough == r.coveredThrough
        && messages.equals(r.messages)
        && limitations.equals(r.limitations)
        && provenance.equals(r.provenance)
        && sourceDigest().equals(r.sourceDigest());
  }

  @Override
  public int hashCode() {
    return Objects.hash(messages, sourceDigest(), coveredThrough, limitations, provenance);
  }

  @Override
  public String toString() {
    return "CompactionResult[messages="
        + messages
        + ", sourceDigest="
        + sourceDigest()
        + ", coveredThrough="
        + coveredThrough
        + ", limitations="
        + limitations
        + ", provenance="
        + provenance
        + "]";
  }
}
