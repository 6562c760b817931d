package dev.compactor.chat;

import dev.compactor.chat.base.CallUsage;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.base.ChatTaskException.Code;
import dev.compactor.chat.base.CompactionDetails.SummaryReport;
import dev.compactor.chat.internal.Reasons;
import dev.compactor.chat.internal.SummaryCompactor;
import dev.compactor.chat.settings.CompactionSettings;
import dev.compactor.chat.settings.StickySettings;
import dev.compactor.chat.settings.SummarySettings;
import dev.compactor.chat.store.ArchivedMessage;
import dev.compactor.chat.store.ChatRecord;
import dev.compactor.chat.store.ChatSnapshot;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatUpdate;
import dev.compactor.chat.store.ChatWork.Outcome;
import dev.compactor.chat.store.SummaryRecord;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.PriceTable;
import dev.compactor.core.message.Message;
import dev.compactor.models.ChatModelOptions;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Chat tasks: calls on chats identified by tenant and chat id, with sticky compaction settings,
 * summary and provider compaction, failsafes and the compaction report.
 *
 * <p><b>A call</b> ({@link #call}), in order, all while the store holds the chat (the steps of
 * {@link ChatTaskPipeline}):
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
  private final Clock clock;
  private final SummaryStep summaryStep;
  private final ChatTaskPipeline pipeline;

  private ChatTaskService(Builder b) {
    this.store = Objects.requireNonNull(b.store, "store");
    ModelResolver models =
        new ModelResolver(
            b.models == null ? ChatModelFactory.standard(ChatModelOptions.defaults()) : b.models);
    this.clock = b.clock;
    this.summaryStep = new SummaryStep(new SummaryCompactor(b.prices, b.ids), models);
    this.pipeline =
        new ChatTaskPipeline(b.catalog, b.clock, models, b.caller, b.prices, summaryStep);
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
    return store.update(key, chat -> pipeline.run(key, request, chat));
  }

  private static StickySettings storedSettings(ChatRecord rec) {
    return StickySettings.fromJson(rec.settings());
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
              summaryStep.summarize(history, selection.get(), s, model, settings);
          List<ArchivedMessage> archived = new ArrayList<>();
          SummaryStep.archive(summary, now, archived);
          SummaryRecord record =
              SummaryStep.record(
                  key, summary, history.size(), SummaryRecord.Trigger.ON_DEMAND, now);
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
