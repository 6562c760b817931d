package dev.compactor.chat;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.chat.base.CompactionDetails;
import dev.compactor.chat.settings.StickySettings;
import dev.compactor.chat.store.ArchivedMessage;
import dev.compactor.chat.store.CallRecord;
import dev.compactor.chat.store.ChatRecord;
import dev.compactor.chat.store.ChatSnapshot;
import dev.compactor.chat.store.ChatUpdate;
import dev.compactor.chat.store.ChatWork.Outcome;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.PriceTable;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A chat task call as a sequence of named steps, run while the store holds the chat (see {@link
 * ChatTaskService} for what each step means to a client):
 *
 * <ol>
 *   <li>{@link #begin}: the request's settings validated and merged into the chat's, messages
 *       stamped, ids checked, no assistant message while tool calls are unanswered;
 *   <li>{@link Failsafes}: {@code stop_on_high_messages}, then {@code stop_on_high_interactions};
 *   <li>{@link Submission}: a call that goes to the model has a model, something to send, and a
 *       history the model accepts;
 *   <li>{@link SummaryStep}: summary compaction of the existing history;
 *   <li>{@link #addMessages}: the call's messages added (or replacing the history);
 *   <li>{@link ModelCallStep}: the model call with provider compaction and overflow recovery;
 *   <li>{@link #record}: the chat's new record, the compaction report (returned and stored with the
 *       call) and the result.
 * </ol>
 *
 * A step that fails throws {@link ChatTaskException}; nothing of the call is stored.
 */
final class ChatTaskPipeline {
  private final ModelCatalog catalog;
  private final Clock clock;
  private final Submission submission;
  private final SummaryStep summary;
  private final ModelCallStep modelCall;

  ChatTaskPipeline(
      ModelCatalog catalog,
      Clock clock,
      ModelResolver models,
      ModelCaller caller,
      PriceTable prices,
      SummaryStep summary) {
    this.catalog = catalog;
    this.clock = clock;
    this.submission = new Submission(models);
    this.summary = summary;
    this.modelCall = new ModelCallStep(caller, prices, catalog, clock);
  }

  /** Runs one call on {@code chat}. */
  Outcome<ChatTaskResult> run(ChatKey key, ChatTaskRequest request, ChatSnapshot chat) {
    TaskCall call = begin(key, request, chat);
    Failsafes.check(call);
    submission.check(call);
    summary.compact(call);
    addMessages(call);
    modelCall.call(call);
    return record(call);
  }

  // ------------------------------------------------------------------ begin

  /** Validates and merges the settings, stamps the call's messages and checks their ids. */
  private TaskCall begin(ChatKey key, ChatTaskRequest req, ChatSnapshot chat) {
    Instant now = clock.instant();
    ChatRecord rec = chat.exists() ? chat.record() : ChatRecord.fresh(key, now);
    StickySettings sticky =
        StickySettings.fromJson(rec.settings()).merge(req.compaction(), catalog);
    TaskCall call =
        new TaskCall(key, req, rec, now, sticky, chat.messages(), stamp(req.messages(), now));
    checkIds(call.priorHistory(), call.incoming);
    checkAnswered(call);
    return call;
  }

  /**
   * Refuses an assistant message of this call that comes while tool calls are unanswered: the
   * results must come first (whether or not the call goes to the model).
   */
  private static void checkAnswered(TaskCall call) {
    Set<String> pending = new LinkedHashSet<>();
    List<Message> prior = call.priorHistory();
    List<Message> all = new ArrayList<>(prior);
    all.addAll(call.incoming);
    for (int i = 0; i < all.size(); i++) {
      Message m = all.get(i);
      if (m.isToolResult()) {
        pending.remove(m.toolCallId());
        continue;
      }
      if (m.role() != Role.ASSISTANT) {
        continue;
      }
      if (i >= prior.size() && !pending.isEmpty()) {
        throw new ChatTaskException(
            Code.INVALID_REQUEST,
            "message "
                + m.id()
                + " of chat "
                + call.key
                + " is an assistant message while tool calls are unanswered ("
                + String.join(", ", pending)
                + "); send their results (role \"tool\") before it");
      }
      m.toolCalls().forEach(c -> pending.add(c.id()));
    }
  }

  private static List<Message> stamp(List<Message> messages, Instant now) {
    List<Message> out = new ArrayList<>(messages.size());
    for (Message m : messages) {
      out.add(m.timestamp() == null ? m.toBuilder().timestamp(now).build() : m);
    }
    return out;
  }

  private static void checkIds(List<Message> history, List<Message> incoming) {
    Set<String> ids = new HashSet<>();
    for (Message m : history) {
      ids.add(m.id().value());
    }
    for (Message m : incoming) {
      if (!ids.add(m.id().value())) {
        throw new ChatTaskException(
            Code.INVALID_REQUEST, "message id \"" + m.id() + "\" is already in the chat");
      }
    }
  }

  // ------------------------------------------------------------------ add messages

  /** Archives a replaced history and adds the call's messages to what is left. */
  private static void addMessages(TaskCall call) {
    if (call.replace) {
      for (Message m : call.history) {
        call.archived.add(new ArchivedMessage(m, ArchivedMessage.Reason.REPLACED, null, call.now));
      }
      call.lastPrompt = null;
      call.lastCompletion = null;
    }
    call.newHistory.addAll(call.base);
    call.newHistory.addAll(call.incoming);
  }

  // ------------------------------------------------------------------ record

  /** The chat's new record, the compaction report and the result. */
  private static Outcome<ChatTaskResult> record(TaskCall call) {
    ChatRecord rec = call.record;
    ChatRecord updated =
        new ChatRecord(
            call.key,
            call.sticky.isEmpty() ? null : call.sticky.toJson(),
            call.model,
            call.interactions,
            call.lastPrompt,
            call.lastCompletion,
            rec.version(),
            rec.createdAt(),
            call.now);
    CompactionDetails report =
        call.settings.exists()
            ? new CompactionDetails(call.summaryReport, call.providerReport)
            : null;
    ChatDetails details =
        new ChatDetails(
            call.api,
            call.model,
            call.newHistory.size(),
            call.interactions,
            report,
            call.summaryUsage,
            call.overflowRetries);
    CallRecord stored =
        new CallRecord(
            call.now,
            call.model,
            call.api,
            call.submits(),
            rec.lastPromptTokens(),
            call.submits() ? call.lastPrompt : null,
            call.countWithCall(),
            call.newHistory.size(),
            report);
    return Outcome.of(
        new ChatUpdate(updated, call.newHistory, call.archived, call.summaries, stored),
        new ChatTaskResult(call.key, call.reply, call.usage, details));
  }
}
