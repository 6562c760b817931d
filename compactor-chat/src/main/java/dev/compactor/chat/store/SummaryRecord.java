package dev.compactor.chat.store;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.core.message.Usage;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One summarization of a chat: the {@code gpt_summary_uuid} of the compaction report names it.
 *
 * @param uuid its id
 * @param key the chat
 * @param createdAt when it was made
 * @param trigger whether summary compaction made it or it was asked for
 * @param model the model that wrote the summary
 * @param coveredMessageIds the ids of the messages it replaced, in order (they are archived)
 * @param messageCountBefore messages in the chat before
 * @param messageCountAfter messages in the chat after
 * @param summaryMessageId the id of the message that carries the summary in the chat
 * @param summaryText the summary as the model wrote it
 * @param usage the summary call's usage (zeros when the provider reported none)
 * @param costUsd the summary call's cost in USD, or null when the model has no known price
 */
public record SummaryRecord(
    String uuid,
    ChatKey key,
    Instant createdAt,
    Trigger trigger,
    String model,
    List<String> coveredMessageIds,
    int messageCountBefore,
    int messageCountAfter,
    String summaryMessageId,
    String summaryText,
    Usage usage,
    BigDecimal costUsd) {

  /** What made a summary. */
  public enum Trigger {
    /** Summary compaction, before a model call. */
    AUTO,
    /** An on-demand summarization. */
    ON_DEMAND;

    /** {@code auto} or {@code on_demand}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a wire name. */
    public static Trigger parse(String s) {
      return valueOf(s.toUpperCase(Locale.ROOT));
    }
  }

  public SummaryRecord {
    Objects.requireNonNull(uuid, "uuid");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(model, "model");
    coveredMessageIds = List.copyOf(coveredMessageIds);
    Objects.requireNonNull(summaryMessageId, "summaryMessageId");
    Objects.requireNonNull(summaryText, "summaryText");
    Objects.requireNonNull(usage, "usage");
  }
}
