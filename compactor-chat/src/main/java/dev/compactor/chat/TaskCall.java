package dev.compactor.chat;

import dev.compactor.chat.base.CallUsage;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.CompactionDetails.ProviderReport;
import dev.compactor.chat.base.CompactionDetails.SummaryReport;
import dev.compactor.chat.settings.CompactionSettings;
import dev.compactor.chat.settings.StickySettings;
import dev.compactor.chat.store.ArchivedMessage;
import dev.compactor.chat.store.ChatRecord;
import dev.compactor.chat.store.SummaryRecord;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatModel;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One chat task call on its way through {@link ChatTaskPipeline}: what the request and the stored
 * chat say (set when the call begins) and what each step adds. Confined to the thread running the
 * call; never shared.
 */
final class TaskCall {
  // ------------------------------------------------------------------ given
  final ChatKey key;
  final ChatTaskRequest request;
  final ChatRecord record;
  final Instant now;
  final StickySettings sticky;
  final CompactionSettings settings;
  final boolean replace;
  final List<Message> history;
  final List<Message> incoming;
  final String model;

  // ------------------------------------------------------------------ added by the steps
  /** The chat's client, once the submission was checked; null when the call is not submitted. */
  ChatModel chatModel;

  /** What the call's messages are added to: the history, summarized or not, or nothing. */
  List<Message> base;

  /** The history after the call. */
  final List<Message> newHistory = new ArrayList<>();

  final List<ArchivedMessage> archived = new ArrayList<>();
  final List<SummaryRecord> summaries = new ArrayList<>();
  SummaryReport summaryReport;
  CallUsage summaryUsage;
  ProviderReport providerReport;
  Long lastPrompt;
  Long lastCompletion;
  long interactions;
  String api;
  Message reply;
  CallUsage usage;
  Integer overflowRetries;

  TaskCall(
      ChatKey key,
      ChatTaskRequest request,
      ChatRecord record,
      Instant now,
      StickySettings sticky,
      List<Message> history,
      List<Message> incoming) {
    this.key = key;
    this.request = request;
    this.record = record;
    this.now = now;
    this.sticky = sticky;
    this.settings = sticky.effective();
    this.replace = request.messageOperation() == MessageOperation.SET;
    this.history = history;
    this.incoming = incoming;
    this.model = request.model() != null ? request.model() : record.model();
    this.base = replace ? List.of() : history;
    this.lastPrompt = record.lastPromptTokens();
    this.lastCompletion = record.lastCompletionTokens();
    this.interactions = record.interactions();
  }

  /** Whether the call goes to the model. */
  boolean submits() {
    return request.submitToModel();
  }

  /** The history the call's messages are added to, before any compaction. */
  List<Message> priorHistory() {
    return replace ? List.of() : history;
  }

  /** Messages in the chat once the call's messages are added, before compaction. */
  int countWithCall() {
    return priorHistory().size() + incoming.size();
  }
}
