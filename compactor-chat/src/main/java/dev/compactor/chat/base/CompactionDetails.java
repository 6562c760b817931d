package dev.compactor.chat.base;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.Json;

/**
 * What compaction did on one call: {@code _gpt_chat_details.compaction}. {@code summary} is present
 * only when the chat has summary compaction settings, {@code provider} only when it has provider
 * compaction settings; a chat with neither has no report.
 *
 * <p>JSON shape (see {@code docs/chat-tasks.md}):
 *
 * <pre>{@code
 * {"summary": {"enabled": true, "activated": true, "message_count_before": 64,
 *              "message_count_after": 4, "gpt_summary_uuid": "…"},
 *  "provider": {"enabled": true, "compacted": false, "reason": "provider did not compact"}}
 * }</pre>
 *
 * @param summary the summary section, or null when the chat has no summary settings
 * @param provider the provider section, or null when the chat has no provider settings
 */
public record CompactionDetails(SummaryReport summary, ProviderReport provider) {

  /** The report as JSON, in the shape above: what the API answers and the store keeps. */
  public ObjectNode toJson() {
    ObjectNode o = Json.MAPPER.createObjectNode();
    if (summary != null) {
      o.set("summary", summary.toJson());
    }
    if (provider != null) {
      o.set("provider", provider.toJson());
    }
    return o;
  }

  /**
   * What summary compaction did.
   *
   * @param enabled whether summary compaction is switched on for the chat
   * @param activated whether the chat was summarized on this call
   * @param messageCountBefore messages in the chat before summarizing; only when activated
   * @param messageCountAfter messages in the chat after summarizing; only when activated
   * @param gptSummaryUuid the summary record created; only when activated
   * @param reason why nothing was summarized (one of {@link Reasons}); only when not activated
   */
  public record SummaryReport(
      boolean enabled,
      boolean activated,
      Integer messageCountBefore,
      Integer messageCountAfter,
      String gptSummaryUuid,
      String reason) {
    public SummaryReport {
      if (activated && (messageCountBefore == null || messageCountAfter == null)) {
        throw new IllegalArgumentException("an activated summary report needs both counts");
      }
      if (activated && gptSummaryUuid == null) {
        throw new IllegalArgumentException("an activated summary report needs the summary uuid");
      }
      if (!activated && reason == null) {
        throw new IllegalArgumentException("a summary report without activation needs a reason");
      }
    }

    /** Summarized on this call. */
    public static SummaryReport activated(int before, int after, String uuid) {
      return new SummaryReport(true, true, before, after, uuid, null);
    }

    /** Not summarized on this call, for {@code reason}. */
    public static SummaryReport notActivated(boolean enabled, String reason) {
      return new SummaryReport(enabled, false, null, null, null, reason);
    }

    /** The {@code summary} section as JSON: the fields that are set. */
    public ObjectNode toJson() {
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("enabled", enabled);
      o.put("activated", activated);
      if (messageCountBefore != null) {
        o.put("message_count_before", messageCountBefore);
      }
      if (messageCountAfter != null) {
        o.put("message_count_after", messageCountAfter);
      }
      if (gptSummaryUuid != null) {
        o.put("gpt_summary_uuid", gptSummaryUuid);
      }
      if (reason != null) {
        o.put("reason", reason);
      }
      return o;
    }
  }

  /**
   * What provider compaction did.
   *
   * @param enabled whether provider compaction is switched on for the chat
   * @param compacted whether the provider compacted the context on this call
   * @param reason why nothing was compacted (one of {@link Reasons}); only when not compacted
   */
  public record ProviderReport(boolean enabled, boolean compacted, String reason) {
    public ProviderReport {
      if (!compacted && reason == null) {
        throw new IllegalArgumentException("a provider report without compaction needs a reason");
      }
    }

    public static ProviderReport didCompact() {
      return new ProviderReport(true, true, null);
    }

    public static ProviderReport notCompacted(boolean enabled, String reason) {
      return new ProviderReport(enabled, false, reason);
    }

    /** The {@code provider} section as JSON: the fields that are set. */
    public ObjectNode toJson() {
      ObjectNode o = Json.MAPPER.createObjectNode();
      o.put("enabled", enabled);
      o.put("compacted", compacted);
      if (reason != null) {
        o.put("reason", reason);
      }
      return o;
    }
  }
}
