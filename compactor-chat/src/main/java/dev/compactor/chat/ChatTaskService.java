package dev.compactor.chat;

import dev.compactor.chat.ChatTaskException.Code;
import dev.compactor.chat.compaction.CompactionReport;
import dev.compactor.chat.compaction.CompactionReport.ProviderReport;
import dev.compactor.chat.compaction.CompactionReport.SummaryReport;
import dev.compactor.chat.compaction.Reasons;
import dev.compactor.chat.compaction.SummaryCompactor;
import dev.compactor.chat.settings.CompactionSettings;
import dev.compactor.chat.settings.ProviderSettings;
import dev.compactor.chat.settings.StickySettings;
import dev.compactor.chat.settings.SummarySettings;
import dev.compactor.chat.store.ArchivedMessage;
import dev.compactor.chat.store.ChatRecord;
import dev.compactor.chat.store.ChatSnapshot;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatUpdate;
import dev.compactor.chat.store.ChatWork.Outcome;
import dev.compactor.chat.store.SummaryRecord;
import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.PriceTable;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.core.view.Violation;
import dev.compactor.models.ChatModelOptions;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Chat tasks: calls on chats identified by tenant and chat id, with sticky compaction settings,
 * summary and provider compaction, failsafes and the compaction report.
 *
 * <p><b>A call</b> ({@link #call}), in order, all while the store holds the chat:
 *
 * <ol>
 *   <li>the request's compaction settings are validated and merged into the chat's (an invalid
 *       value fails the call);
 *   <li>failsafes: {@code stop_on_high_messages} against the history with the call's messages added
 *       (after a {@code set}, the new messages only), then, for a call that goes to the model,
 *       {@code stop_on_high_interactions} against the chat's model calls so far;
 *   <li>summary compaction, on a call that goes to the model, brings no tool result and does not
 *       replace the history, when an activation threshold is reached: the existing history is
 *       summarized before the call's messages are added;
 *   <li>the call's messages are added (or replace the history);
 *   <li>the model call, with provider compaction's {@code compact_threshold} when the model speaks
 *       the Responses API; the reply is appended;
 *   <li>everything is stored in one transaction.
 * </ol>
 *
 * A failure at any step stores nothing of the call: a tripped failsafe, invalid settings, a failed
 * summarization, a model error or context overflow leave the chat exactly as it was.
 *
 * <p>Thread-safe; calls on one chat are serialized by the store, calls on different chats run in
 * parallel.
 *
 * <pre>{@code
 * try (ChatStore store = ChatStores.open("chats.db")) {
 *   ChatTaskService chats = ChatTaskService.builder(store).build();
 *   ChatTaskResult r = chats.call(ChatKey.of("acme", "support-42"),
 *       ChatTaskJson.parseRequest("""
 *           {"model": "openai/gpt-5-mini", "messages": [{"role": "user", "content": "Hi"}],
 *            "compaction": {"summary": {"activation": {"message_count": 60}}}}"""));
 *   System.out.println(r.reply().content());
 * }
 * }</pre>
 */
public final class ChatTaskService {
  private final ChatStore store;
  private final ChatModelFactory models;
  private final ModelCaller caller;
  private final ModelCatalog catalog;
  private final PriceTable prices;
  private final Clock clock;
  private final SummaryCompactor compactor;

  private ChatTaskService(Builder b) {
    this.store = Objects.requireNonNull(b.store, "store");
    this.models =
        b.models == null ? ChatModelFactory.standard(ChatModelOptions.defaults()) : b.models;
    this.caller = b.caller;
    this.catalog = b.catalog;
    this.prices = b.prices;
    this.clock = b.clock;
    this.compactor = new SummaryCompactor(prices, b.ids);
  }

  /** A builder for a service over {@code store}. */
  public static Builder builder(ChatStore store) {
    return new Builder(store);
  }

  /** The store the service keeps chats in. */
  public ChatStore store() {
    return store;
  }

  // ------------------------------------------------------------------ call

  /**
   * Performs one chat task call.
   *
   * @throws ChatTaskException naming what failed; the chat is unchanged
   * @throws dev.compactor.chat.store.ChatStoreException when the database fails
   */
  public ChatTaskResult call(ChatKey key, ChatTaskRequest request) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(request, "request");
    return store.update(key, chat -> perform(key, request, chat));
  }

  private Outcome<ChatTaskResult> perform(ChatKey key, ChatTaskRequest req, ChatSnapshot chat) {
    Instant now = clock.instant();
    ChatRecord rec = chat.exists() ? chat.record() : ChatRecord.fresh(key, now);
    StickySettings sticky = storedSettings(rec).merge(req.compaction(), catalog);
    CompactionSettings settings = sticky.effective();
    boolean replace = req.messageOperation() == MessageOperation.SET;
    List<Message> history = chat.messages();
    List<Message> incoming = stamp(req.messages(), now);
    checkIds(replace ? List.of() : history, incoming);

    // Failsafes come first: before compaction, before any model call.
    int countWithCall = (replace ? 0 : history.size()) + incoming.size();
    if (req.stopOnHighMessages() != null && countWithCall > req.stopOnHighMessages()) {
      throw new ChatTaskException(
          Code.FAILSAFE_MESSAGES,
          "stop_on_high_messages: chat "
              + key
              + " would hold "
              + countWithCall
              + " messages, more than the limit of "
              + req.stopOnHighMessages()
              + "; nothing was stored (raise the limit, summarize the chat, or replace its"
              + " history with message_operation \"set\")");
    }
    String model = req.model() != null ? req.model() : rec.model();
    ChatModel chatModel = null;
    if (req.submitToModel()) {
      if (rec.interactions() >= req.stopOnHighInteractions()) {
        throw new ChatTaskException(
            Code.FAILSAFE_INTERACTIONS,
            "stop_on_high_interactions: chat "
                + key
                + " has made "
                + rec.interactions()
                + " model calls, the limit is "
                + req.stopOnHighInteractions()
                + "; nothing was stored (this counter is never reset)");
      }
      if (model == null) {
        throw new ChatTaskException(
            Code.INVALID_REQUEST,
            "model is required: chat " + key + " has no model yet (e.g. \"openai/gpt-5-mini\")");
      }
      if (countWithCall == 0) {
        throw new ChatTaskException(
            Code.INVALID_REQUEST, "nothing to submit: chat " + key + " has no messages");
      }
      chatModel = createModel(model, "model");
      // Refuse a history the model would reject before anything is spent on it (a summary call).
      List<Message> toSend = new ArrayList<>(replace ? List.of() : history);
      toSend.addAll(incoming);
      checkInvariants(key, toSend);
    }

    // Summary compaction, on the existing history, before the call's messages are added.
    List<Message> base = replace ? List.of() : history;
    List<ArchivedMessage> archived = new ArrayList<>();
    List<SummaryRecord> summaries = new ArrayList<>();
    SummaryReport summaryReport = null;
    CallUsage summaryUsage = null;
    Long lastPrompt = rec.lastPromptTokens();
    Long lastCompletion = rec.lastCompletionTokens();
    if (settings.summary() != null) {
      SummarySettings s = settings.summary();
      String reason = summaryReason(s, req, incoming, replace, history.size(), rec);
      Optional<SummaryCompactor.Selection> selection =
          reason == null
              ? SummaryCompactor.select(history, s.messageSelection())
              : Optional.empty();
      if (reason == null && selection.isEmpty()) {
        reason = Reasons.NOT_ENOUGH_MESSAGES;
      }
      if (reason != null) {
        summaryReport = SummaryReport.notActivated(s.enabled(), reason);
      } else {
        SummaryCompactor.Summary summary = summarize(history, selection.get(), s, model, settings);
        base = summary.history();
        for (Message m : summary.covered()) {
          archived.add(
              new ArchivedMessage(m, ArchivedMessage.Reason.SUMMARIZED, summary.uuid(), now));
        }
        summaries.add(record(key, summary, history.size(), SummaryRecord.Trigger.AUTO, now));
        summaryReport =
            SummaryReport.activated(history.size(), summary.history().size(), summary.uuid());
        summaryUsage = summary.usage();
      }
    }
    if (replace) {
      for (Message m : history) {
        archived.add(new ArchivedMessage(m, ArchivedMessage.Reason.REPLACED, null, now));
      }
      lastPrompt = null;
      lastCompletion = null;
    }
    List<Message> newHistory = new ArrayList<>(base);
    newHistory.addAll(incoming);

    // The model call, with provider compaction when it applies.
    ProviderReport providerReport = null;
    ProviderSettings p = settings.provider();
    Message reply = null;
    CallUsage usage = null;
    Integer overflowRetries = null;
    long interactions = rec.interactions();
    String api = null;
    if (!req.submitToModel()) {
      if (p != null) {
        providerReport =
            ProviderReport.notCompacted(
                p.enabled(), p.enabled() ? Reasons.NOT_SUBMITTED : Reasons.DISABLED);
      }
    } else {
      api = chatModel.api().wireName();
      ChatRequest.Builder rb =
          ChatRequest.builder()
              .messages(newHistory)
              .tools(req.tools())
              .maxOutputTokens(req.maxOutputTokens())
              .temperature(req.temperature());
      boolean providerAsked = false;
      if (p != null) {
        if (!p.enabled()) {
          providerReport = ProviderReport.notCompacted(false, Reasons.DISABLED);
        } else if (chatModel.api() != ModelApi.RESPONSES) {
          providerReport = ProviderReport.notCompacted(true, Reasons.NOT_RESPONSES_API);
        } else {
          rb.compactThreshold(p.thresholdFor(catalog.lookup(model).contextWindow()));
          providerAsked = true;
        }
      }
      ModelCaller.ModelCallResult result = callModel(key, model, chatModel, rb, newHistory.size());
      ChatResponse response = result.response();
      if (providerAsked) {
        providerReport =
            response.compaction().compacted()
                ? ProviderReport.didCompact()
                : ProviderReport.notCompacted(true, Reasons.PROVIDER_DID_NOT_COMPACT);
      }
      reply = response.message();
      if (reply.timestamp() == null) {
        reply = reply.toBuilder().timestamp(clock.instant()).build();
      }
      if (newHistory.stream().anyMatch(m -> m.id().equals(response.message().id()))) {
        reply = reply.withId(MessageId.random());
      }
      newHistory.add(reply);
      Usage u = response.usage();
      usage =
          new CallUsage(
              model,
              u == null ? new Usage(0, 0, 0, 0, 0) : u,
              u == null ? null : prices.cost(model, u).orElse(null));
      lastPrompt = u == null ? null : u.totalInput();
      lastCompletion = u == null ? null : u.output();
      interactions++;
      overflowRetries = result.overflowRetries();
    }

    ChatRecord updated =
        new ChatRecord(
            key,
            sticky.isEmpty() ? null : sticky.toJson(),
            model,
            interactions,
            lastPrompt,
            lastCompletion,
            rec.version(),
            rec.createdAt(),
            now);
    CompactionReport report =
        settings.exists() ? new CompactionReport(summaryReport, providerReport) : null;
    ChatDetails details =
        new ChatDetails(
            api, model, newHistory.size(), interactions, report, summaryUsage, overflowRetries);
    return Outcome.of(
        new ChatUpdate(updated, newHistory, archived, summaries),
        new ChatTaskResult(key, reply, usage, details));
  }

  private static String summaryReason(
      SummarySettings s,
      ChatTaskRequest req,
      List<Message> incoming,
      boolean replace,
      int historySize,
      ChatRecord rec) {
    if (!s.enabled()) {
      return Reasons.DISABLED;
    }
    if (!req.submitToModel()) {
      return Reasons.NOT_SUBMITTED;
    }
    if (incoming.stream().anyMatch(Message::isToolResult)) {
      return Reasons.TOOL_RESULT;
    }
    if (replace) {
      return Reasons.HISTORY_REPLACED;
    }
    if (!SummaryCompactor.thresholdReached(s.activation(), historySize, rec.lastContextTokens())) {
      return Reasons.BELOW_THRESHOLD;
    }
    return null;
  }

  private SummaryCompactor.Summary summarize(
      List<Message> history,
      SummaryCompactor.Selection selection,
      SummarySettings s,
      String chatModel,
      CompactionSettings settings) {
    String name = s.summarization().model() != null ? s.summarization().model() : chatModel;
    try {
      ChatModel model = createModel(name, "compaction.summary.summarization.model");
      return compactor.summarize(history, selection, s, model, name);
    } catch (ChatTaskException e) {
      SummaryReport failed = SummaryReport.notActivated(true, Reasons.SUMMARIZE_FAILED);
      ProviderReport provider =
          settings.provider() == null ? null : ProviderReport.notCompacted(false, Reasons.DISABLED);
      throw new ChatTaskException(
          Code.SUMMARIZE_FAILED,
          e.getMessage() + "; the chat is unchanged",
          new CompactionReport(failed, provider),
          e);
    }
  }

  private ModelCaller.ModelCallResult callModel(
      ChatKey key, String model, ChatModel chatModel, ChatRequest.Builder request, int messages) {
    ChatRequest built;
    try {
      built = request.build();
    } catch (IllegalArgumentException e) {
      throw new ChatTaskException(Code.INVALID_REQUEST, e.getMessage(), e);
    }
    try {
      return caller.call(chatModel, built);
    } catch (ContextOverflowException e) {
      String counts =
          (e.promptTokens().isPresent()
                  ? " (prompt " + e.promptTokens().getAsLong() + " tokens"
                  : "")
              + (e.contextWindow().isPresent()
                  ? (e.promptTokens().isPresent() ? ", " : " (")
                      + "window "
                      + e.contextWindow().getAsLong()
                      + ")"
                  : e.promptTokens().isPresent() ? ")" : "");
      throw new ChatTaskException(
          Code.CONTEXT_OVERFLOW,
          "the "
              + messages
              + " messages of chat "
              + key
              + " do not fit the context window of "
              + model
              + counts
              + "; nothing was stored (enable summary compaction, or replace the history)",
          e);
    } catch (ModelException e) {
      throw new ChatTaskException(
          Code.MODEL_ERROR,
          "model call to " + model + " failed: " + e.getMessage() + "; nothing was stored",
          e);
    } catch (IllegalArgumentException e) {
      throw new ChatTaskException(
          Code.INVALID_REQUEST,
          "model " + model + " cannot take this request: " + e.getMessage(),
          e);
    }
  }

  private ChatModel createModel(String name, String field) {
    try {
      return models.create(name);
    } catch (ChatTaskException e) {
      throw e;
    } catch (CompactorException | IllegalArgumentException e) {
      throw new ChatTaskException(
          Code.INVALID_REQUEST, field + " \"" + name + "\": " + e.getMessage(), e);
    }
  }

  private static void checkInvariants(ChatKey key, List<Message> history) {
    for (Violation v : new ViewValidator().validate(history)) {
      if (v.kind() == Violation.Kind.TIMESTAMP_ORDER) {
        continue;
      }
      throw new ChatTaskException(
          Code.INVALID_REQUEST,
          "chat "
              + key
              + " cannot be sent to the model: "
              + v.detail()
              + " (send tool results with submit_to_model false before submitting)");
    }
  }

  private List<Message> stamp(List<Message> messages, Instant now) {
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

  private static StickySettings storedSettings(ChatRecord rec) {
    return StickySettings.fromJson(rec.settings());
  }

  private static SummaryRecord record(
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

  // ------------------------------------------------------------------ on demand

  /**
   * Summarizes the chat now, with its summary settings (their defaults when it has none; also when
   * summary compaction is switched off): the same operation summary compaction runs. No activation
   * threshold, no failsafe; the model calls counter is not touched.
   *
   * @return the report ({@code activated} false with reason {@code not_enough_messages} when fewer
   *     than two messages can be summarized), the record and the summary call's usage
   * @throws ChatTaskException code {@code NOT_FOUND} when the chat does not exist, {@code
   *     INVALID_REQUEST} when neither the settings nor the chat name a model, {@code
   *     SUMMARIZE_FAILED} when summarization fails (the chat is unchanged)
   */
  public SummarizeResult summarize(ChatKey key) {
    Objects.requireNonNull(key, "key");
    return store.update(
        key,
        chat -> {
          if (!chat.exists()) {
            throw new ChatTaskException(Code.NOT_FOUND, "chat " + key + " does not exist");
          }
          Instant now = clock.instant();
          ChatRecord rec = chat.record();
          CompactionSettings settings = storedSettings(rec).effective();
          SummarySettings s =
              settings.summary() == null ? SummarySettings.DEFAULTS : settings.summary();
          List<Message> history = chat.messages();
          Optional<SummaryCompactor.Selection> selection =
              SummaryCompactor.select(history, s.messageSelection());
          if (selection.isEmpty()) {
            return Outcome.unchanged(
                new SummarizeResult(
                    key,
                    SummaryReport.notActivated(s.enabled(), Reasons.NOT_ENOUGH_MESSAGES),
                    null,
                    null,
                    history.size()));
          }
          String model =
              s.summarization().model() != null ? s.summarization().model() : rec.model();
          if (model == null) {
            throw new ChatTaskException(
                Code.INVALID_REQUEST,
                "chat "
                    + key
                    + " has no model and its settings name no compaction.summary.summarization.model");
          }
          SummaryCompactor.Summary summary =
              summarize(history, selection.get(), s, model, settings);
          List<ArchivedMessage> archived = new ArrayList<>();
          for (Message m : summary.covered()) {
            archived.add(
                new ArchivedMessage(m, ArchivedMessage.Reason.SUMMARIZED, summary.uuid(), now));
          }
          SummaryRecord record =
              record(key, summary, history.size(), SummaryRecord.Trigger.ON_DEMAND, now);
          ChatRecord updated =
              new ChatRecord(
                  key,
                  rec.settings(),
                  rec.model(),
                  rec.interactions(),
                  null,
                  null,
                  rec.version(),
                  rec.createdAt(),
                  now);
          return Outcome.of(
              new ChatUpdate(updated, summary.history(), archived, List.of(record)),
              new SummarizeResult(
                  key,
                  SummaryReport.activated(history.size(), summary.history().size(), summary.uuid()),
                  record,
                  summary.usage(),
                  summary.history().size()));
        });
  }

  /**
   * What an on-demand summarization did.
   *
   * @param key the chat
   * @param report the summary section of a compaction report
   * @param record the summary record, or null when nothing was summarized
   * @param usage the summary call's usage and cost, or null
   * @param messageCount messages in the chat afterwards
   */
  public record SummarizeResult(
      ChatKey key, SummaryReport report, SummaryRecord record, CallUsage usage, int messageCount) {}

  // ------------------------------------------------------------------ show

  /**
   * The chat as stored: record, history, settings, summary records and archive size.
   *
   * @return empty when the chat does not exist
   */
  public Optional<ChatView> show(ChatKey key) {
    Optional<ChatSnapshot> snap = store.find(key);
    if (snap.isEmpty()) {
      return Optional.empty();
    }
    ChatRecord rec = snap.get().record();
    return Optional.of(
        new ChatView(
            rec,
            snap.get().messages(),
            storedSettings(rec),
            store.summaries(key),
            store.archivedMessages(key).size()));
  }

  /**
   * A stored chat, for display.
   *
   * @param record its record
   * @param messages its history
   * @param settings its sticky compaction settings
   * @param summaries its summary records, oldest first
   * @param archivedMessages how many messages left its history (summarized or replaced)
   */
  public record ChatView(
      ChatRecord record,
      List<Message> messages,
      StickySettings settings,
      List<SummaryRecord> summaries,
      int archivedMessages) {}

  // ------------------------------------------------------------------ builder

  /** Builder of {@link ChatTaskService}. */
  public static final class Builder {
    private final ChatStore store;
    private ChatModelFactory models;
    private ModelCaller caller = ModelCaller.recovering();
    private ModelCatalog catalog = ModelCatalog.builtIn();
    private PriceTable prices = PriceTable.builtIn();
    private Clock clock = Clock.systemUTC();
    private Supplier<String> ids = () -> UUID.randomUUID().toString();

    private Builder(ChatStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * How model clients are made (default: {@link ChatModelFactory#standard} with {@link
     * ChatModelOptions#defaults()}: keys and base URLs from the environment).
     */
    public Builder models(ChatModelFactory models) {
      this.models = Objects.requireNonNull(models, "models");
      return this;
    }

    /** How the chat's model call is made (default {@link ModelCaller#recovering()}). */
    public Builder modelCaller(ModelCaller caller) {
      this.caller = Objects.requireNonNull(caller, "caller");
      return this;
    }

    /** The catalog {@code summarization.model} is checked against and windows come from. */
    public Builder catalog(ModelCatalog catalog) {
      this.catalog = Objects.requireNonNull(catalog, "catalog");
      return this;
    }

    /** Prices for {@code cost_usd} (default {@link PriceTable#builtIn()}). */
    public Builder prices(PriceTable prices) {
      this.prices = Objects.requireNonNull(prices, "prices");
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Makes summary record ids (default random UUIDs). */
    public Builder ids(Supplier<String> ids) {
      this.ids = Objects.requireNonNull(ids, "ids");
      return this;
    }

    public ChatTaskService build() {
      return new ChatTaskService(this);
    }
  }
}
