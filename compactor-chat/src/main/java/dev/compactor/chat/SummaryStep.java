package dev.compactor.chat;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.chat.base.CompactionDetails;
import dev.compactor.chat.base.CompactionDetails.ProviderReport;
import dev.compactor.chat.base.CompactionDetails.SummaryReport;
import dev.compactor.chat.internal.Reasons;
import dev.compactor.chat.internal.SummaryCompactor;
import dev.compactor.chat.settings.CompactionSettings;
import dev.compactor.chat.settings.SummarySettings;
import dev.compactor.chat.store.ArchivedMessage;
import dev.compactor.chat.store.ChatRecord;
import dev.compactor.chat.store.SummaryRecord;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatModel;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Summary compaction: on a call that goes to the model, brings no tool result and does not replace
 * the history, when an activation threshold is reached, the existing history is summarized before
 * the call's messages are added. Also the summarization that on-demand {@code summarize} runs.
 */
final class SummaryStep {
  private final SummaryCompactor compactor;
  private final ModelResolver models;

  SummaryStep(SummaryCompactor compactor, ModelResolver models) {
    this.compactor = compactor;
    this.models = models;
  }

  /** Summarizes the call's history when summary compaction applies; reports either way. */
  void compact(TaskCall call) {
    SummarySettings s = call.settings.summary();
    if (s == null) {
      return;
    }
    String reason = reason(s, call);
    Optional<SummaryCompactor.Selection> selection =
        reason == null
            ? SummaryCompactor.select(call.history, s.messageSelection())
            : Optional.empty();
    if (reason == null && selection.isEmpty()) {
      reason = Reasons.NOT_ENOUGH_MESSAGES;
    }
    if (reason != null) {
      call.summaryReport = SummaryReport.notActivated(s.enabled(), reason);
      return;
    }
    SummaryCompactor.Summary summary =
        summarize(call.history, selection.get(), s, call.model, call.settings);
    call.base = summary.history();
    archive(summary, call.now, call.archived);
    call.summaries.add(
        record(call.key, summary, call.history.size(), SummaryRecord.Trigger.AUTO, call.now));
    call.summaryReport =
        SummaryReport.activated(call.history.size(), summary.history().size(), summary.uuid());
    call.summaryUsage = summary.usage();
  }

  private static String reason(SummarySettings s, TaskCall call) {
    if (!s.enabled()) {
      return Reasons.DISABLED;
    }
    if (!call.submits()) {
      return Reasons.NOT_SUBMITTED;
    }
    if (call.incoming.stream().anyMatch(Message::isToolResult)) {
      return Reasons.TOOL_RESULT;
    }
    if (call.replace) {
      return Reasons.HISTORY_REPLACED;
    }
    ChatRecord rec = call.record;
    if (!SummaryCompactor.thresholdReached(
        s.activation(), call.history.size(), rec.lastContextTokens())) {
      return Reasons.BELOW_THRESHOLD;
    }
    return null;
  }

  /**
   * Summarizes {@code selection} of {@code history} with the summarization model ({@code chatModel}
   * when the settings name none).
   *
   * @throws ChatTaskException code {@code SUMMARIZE_FAILED}, carrying the compaction report
   */
  SummaryCompactor.Summary summarize(
      List<Message> history,
      SummaryCompactor.Selection selection,
      SummarySettings s,
      String chatModel,
      CompactionSettings settings) {
    String name = s.summarization().model() != null ? s.summarization().model() : chatModel;
    try {
      ChatModel model = models.create(name, "compaction.summary.summarization.model");
      return compactor.summarize(history, selection, s, model, name);
    } catch (ChatTaskException e) {
      SummaryReport failed = SummaryReport.notActivated(true, Reasons.SUMMARIZE_FAILED);
      ProviderReport provider =
          settings.provider() == null ? null : ProviderReport.notCompacted(false, Reasons.DISABLED);
      throw new ChatTaskException(
          Code.SUMMARIZE_FAILED,
          e.getMessage() + "; the chat is unchanged",
          new CompactionDetails(failed, provider),
          e);
    }
  }

  /** Archives the summarized messages under the summary's uuid. */
  static void archive(SummaryCompactor.Summary summary, Instant now, List<ArchivedMessage> out) {
    for (Message m : summary.covered()) {
      out.add(new ArchivedMessage(m, ArchivedMessage.Reason.SUMMARIZED, summary.uuid(), now));
    }
  }

  /** The summary record of {@code s}. */
  static SummaryRecord record(
      ChatKey key,
      SummaryCompactor.Summary s,
      int before,
      SummaryRecord.Trigger trigger,
      Instant now) {
    return new SummaryRecord(
        s.uuid(),
        key,
        now,
        trigger,
        s.usage().model(),
        s.covered().stream().map(m -> m.id().value()).toList(),
        before,
        s.history().size(),
        s.summaryMessage().id().value(),
        s.summaryText(),
        s.usage().usage(),
        s.usage().costUsd());
  }
}
