package dev.compactor.chat.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.base.CompactionDetails;
import dev.compactor.chat.base.CompactionDetails.ProviderReport;
import dev.compactor.chat.base.CompactionDetails.SummaryReport;
import dev.compactor.wire.json.Json;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * One chat task call as stored with the chat: when it ran, with which model, and the compaction
 * report it returned ({@code _gpt_chat_details.compaction}).
 *
 * @param at when the call ran
 * @param model the chat's model after the call, or null when it has none
 * @param api the wire API of the model call, or null when the call did not go to the model
 * @param submitted whether the call went to the model
 * @param tokensBefore the chat's last context size before the call (input tokens of the previous
 *     model call, as the provider reported them), or null when unknown
 * @param tokensAfter the input tokens of this call's model call as the provider reported them, or
 *     null when the call did not go to the model or no usage was reported
 * @param messageCountBefore messages in the chat once the call's messages were added, before
 *     compaction
 * @param messageCountAfter messages in the chat after the call
 * @param compaction the compaction report, or null when the chat has no compaction settings
 */
public record CallRecord(
    Instant at,
    String model,
    String api,
    boolean submitted,
    Long tokensBefore,
    Long tokensAfter,
    int messageCountBefore,
    int messageCountAfter,
    CompactionDetails compaction) {

  /** What compaction did on a call. */
  public enum Action {
    /** Nothing was compacted. */
    NONE,
    /** Summary compaction summarized the chat. */
    SUMMARIZED,
    /** The provider compacted the context. */
    PROVIDER_COMPACTED,
    /** Both. */
    SUMMARIZED_AND_PROVIDER_COMPACTED;

    /** {@code none}, {@code summarized}, … */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a wire name. */
    public static Action parse(String s) {
      return valueOf(s.toUpperCase(Locale.ROOT));
    }
  }

  public CallRecord {
    Objects.requireNonNull(at, "at");
  }

  /** What compaction did, read from the report. */
  public Action action() {
    boolean summarized =
        compaction != null && compaction.summary() != null && compaction.summary().activated();
    boolean provider =
        compaction != null && compaction.provider() != null && compaction.provider().compacted();
    if (summarized && provider) {
      return Action.SUMMARIZED_AND_PROVIDER_COMPACTED;
    }
    return summarized ? Action.SUMMARIZED : provider ? Action.PROVIDER_COMPACTED : Action.NONE;
  }

  /** The summary record the call made, or null. */
  public String summaryUuid() {
    return compaction == null || compaction.summary() == null
        ? null
        : compaction.summary().gptSummaryUuid();
  }

  /** The report as stored: the JSON of {@code _gpt_chat_details.compaction}; null for none. */
  static String reportJson(CompactionDetails r) {
    return r == null ? null : r.toJson().toString();
  }

  /** Reads what {@link #reportJson} wrote. */
  static CompactionDetails readReport(String json) throws JsonProcessingException {
    if (json == null) {
      return null;
    }
    JsonNode o = Json.MAPPER.readTree(json);
    JsonNode s = o.get("summary");
    JsonNode p = o.get("provider");
    SummaryReport summary =
        s == null
            ? null
            : new SummaryReport(
                s.path("enabled").asBoolean(),
                s.path("activated").asBoolean(),
                s.has("message_count_before") ? s.get("message_count_before").asInt() : null,
                s.has("message_count_after") ? s.get("message_count_after").asInt() : null,
                s.has("gpt_summary_uuid") ? s.get("gpt_summary_uuid").asText() : null,
                s.has("reason") ? s.get("reason").asText() : null);
    ProviderReport provider =
        p == null
            ? null
            : new ProviderReport(
                p.path("enabled").asBoolean(),
                p.path("compacted").asBoolean(),
                p.has("reason") ? p.get("reason").asText() : null);
    return new CompactionDetails(summary, provider);
  }
}
