package dev.compactor.log.store;

import dev.compactor.core.Bounds;
import dev.compactor.core.policy.AppliedCompaction;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One entry of the compaction journal ({@code compaction.jsonl}): what a compaction did.
 *
 * <p>On disk: {@code {"timestamp":"2025-01-02T03:04:05Z","trigger":"auto","strategy":"trim",
 * "tokens_before":120000,"tokens_after":70000,"messages_before":80,"messages_after":52,
 * "view":"compacted-001", …extra fields}}; {@code view} is omitted when null.
 *
 * @param timestamp when the compaction happened
 * @param trigger what started it, e.g. {@code auto}, {@code manual}, {@code overflow}
 * @param strategy the strategy that ran, e.g. {@code trim}, {@code summarize}
 * @param tokensBefore tokens of the active view before
 * @param tokensAfter tokens of the view it produced
 * @param messagesBefore messages of the active view before
 * @param messagesAfter messages of the view it produced
 * @param viewId the view it produced, or null when it produced none (e.g. a rejected attempt)
 * @param extra free-form fields (plain JSON values: String, Number, Boolean, null, List, Map),
 *     written at the top level of the entry; keys must not be one of the fields above
 */
public record CompactionRecord(
    Instant timestamp,
    String trigger,
    String strategy,
    long tokensBefore,
    long tokensAfter,
    int messagesBefore,
    int messagesAfter,
    String viewId,
    Map<String, Object> extra) {

  /** JSON names of the typed fields, which {@code extra} may not use. */
  static final Set<String> FIELDS =
      Set.of(
          "timestamp",
          "trigger",
          "strategy",
          "tokens_before",
          "tokens_after",
          "messages_before",
          "messages_after",
          "view");

  /**
   * @throws IllegalArgumentException naming the value when timestamp, trigger or strategy is
   *     missing, a count is negative, or an extra key is a field name
   */
  public CompactionRecord {
    Objects.requireNonNull(timestamp, "timestamp");
    if (trigger == null || trigger.isBlank()) {
      throw new IllegalArgumentException("compaction trigger must not be blank, got " + trigger);
    }
    if (strategy == null || strategy.isBlank()) {
      throw new IllegalArgumentException("compaction strategy must not be blank, got " + strategy);
    }
    Bounds.atLeast(0, tokensBefore, "compaction tokensBefore");
    Bounds.atLeast(0, tokensAfter, "compaction tokensAfter");
    Bounds.atLeast(0, messagesBefore, "compaction messagesBefore");
    Bounds.atLeast(0, messagesAfter, "compaction messagesAfter");
    if (extra == null || extra.isEmpty()) {
      extra = Map.of();
    } else {
      for (String k : extra.keySet()) {
        if (FIELDS.contains(k)) {
          throw new IllegalArgumentException(
              "compaction record extra key \"" + k + "\" is a field of the record");
        }
      }
      extra = Collections.unmodifiableMap(new LinkedHashMap<>(extra));
    }
  }

  /** A record without extra fields. */
  public CompactionRecord(
      Instant timestamp,
      String trigger,
      String strategy,
      long tokensBefore,
      long tokensAfter,
      int messagesBefore,
      int messagesAfter,
      String viewId) {
    this(
        timestamp,
        trigger,
        strategy,
        tokensBefore,
        tokensAfter,
        messagesBefore,
        messagesAfter,
        viewId,
        Map.of());
  }

  /**
   * The entry for what a policy reports: its fields, with {@code duration_ms} and, when there are
   * any, {@code limitations} as extra fields.
   */
  public static CompactionRecord of(AppliedCompaction r) {
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("duration_ms", r.duration().toMillis());
    if (!r.limitations().isEmpty()) {
      extra.put("limitations", r.limitations());
    }
    return new CompactionRecord(
        r.at(),
        r.trigger().wireName(),
        r.strategy(),
        r.tokensBefore(),
        r.tokensAfter(),
        r.messagesBefore(),
        r.messagesAfter(),
        r.viewId(),
        extra);
  }
}
