package dev.compactor.core.policy;

import dev.compactor.core.Bounds;
import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.internal.CompactionApplier;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.ContextMeasurement;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.Conversation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToDoubleBiFunction;

/**
 * The post-turn automatic compaction policy of one conversation. Call {@link #afterTurn} after
 * every turn (a response appended, or tool results appended).
 *
 * <ol>
 *   <li>Nothing while a tool call has no result, and nothing when the provider-visible message
 *       count has not changed since the last applied compaction and the throttle interval has not
 *       passed (UI-only status messages are not growth). Only an applied compaction arms the
 *       throttle: a failed one or a check that found nothing to do does not.
 *   <li>The context is measured with the usage anchor (provider-reported input of the last response
 *       plus estimates of what came after) or, without a valid anchor, by estimates.
 *   <li>With a {@link #planner(CostPlanner) cost planner} (the standard policy's), below the
 *       budget: every tool output but the last few is masked as soon as the predicted saving over
 *       the expected later calls pays back the prompt cache the masking invalidates.
 *   <li>From 90 % of the budget: one provider-visible reminder per view to save durable state
 *       (objective, decisions, work state, next move, files to reload, plus the project's {@code
 *       compact_instructions}). The reminder is a message in the log, so the marker survives
 *       reloads; a new view re-arms it.
 *   <li>At the budget: a trim toward 70 % of the budget. When the estimated savings of a trim are
 *       under 10 % of the stored text, or the trim itself saves under 10 % or leaves the context
 *       over the budget, a summary instead, whose verbatim tail is at most {@link
 *       #SUMMARY_TAIL_SHARE} of the budget.
 *   <li>A failed summary latches the conversation to trim-only until {@code latchGrowth} more
 *       provider-visible messages arrive or a summary succeeds (a successful trim or masking does
 *       not lift it); the latch is a UI-only message in the log, so it survives reloads too.
 * </ol>
 *
 * Every compaction makes a new view (never rewriting the master log), is validated before it is
 * switched to, is reported to the {@link CompactionListener} (the journal) and returned. Not
 * thread-safe: one instance per conversation, called from its turn loop.
 */
public final class AutoCompactor {

  /** Tool outputs the masking step keeps verbatim. */
  public static final int MASK_KEEP_LAST = 5;

  /** Outputs the masking step masks at a time, so the prefix changes rarely. */
  public static final int MASK_BATCH = 10;

  /** The verbatim tail of the policy's summaries: at most this share of the budget. */
  public static final double SUMMARY_TAIL_SHARE = 0.35;

  /**
   * The masking options of a planned policy ({@link #planner(CostPlanner)}): placeholders that list
   * up to 16 mentions, 24 code names and an index of up to 300 further identifiers of the output
   * (one per 25 tokens) that the rest of the view lacks, so that the names an agent needs again
   * survive masking outputs early. A base config's own values win.
   */
  public static final Map<String, Object> PLANNED_MASK_OPTIONS =
      Map.of("mentions", 16, "names", 24, "index", 300);

  /** Metadata key marking the reminder message; its value is the view it was sent for. */
  public static final String REMINDER_KEY = "compaction_reminder_view";

  /** Metadata key of the latch message: the visible message count when a summary failed. */
  public static final String SUMMARY_FAILED_KEY = "compaction_summary_failed_at";

  /**
   * Thresholds.
   *
   * @param reminderRatio fraction of the budget from which the reminder is sent (0.9)
   * @param trimTargetRatio fraction of the budget a trim aims at (0.7)
   * @param minSavings a trim saving less than this fraction is rejected (0.10)
   * @param latchGrowth visible messages after a failed summary before summaries are retried (20)
   * @param throttle minimum time after an applied compaction before the next check when no visible
   *     message was added (60 s)
   */
  public record Settings(
      double reminderRatio,
      double trimTargetRatio,
      double minSavings,
      int latchGrowth,
      Duration throttle) {
    public static final Settings DEFAULTS =
        new Settings(0.9, 0.7, 0.10, 20, Duration.ofSeconds(60));

    public Settings {
      if (!(reminderRatio > 0 && reminderRatio <= 1)) {
        throw new IllegalArgumentException("reminderRatio must be in (0, 1], got " + reminderRatio);
      }
      if (!(trimTargetRatio > 0 && trimTargetRatio <= 1)) {
        throw new IllegalArgumentException(
            "trimTargetRatio must be in (0, 1], got " + trimTargetRatio);
      }
      if (!(minSavings >= 0 && minSavings < 1)) {
        throw new IllegalArgumentException("minSavings must be in [0, 1), got " + minSavings);
      }
      Bounds.atLeast(0, latchGrowth, "latchGrowth");
      Objects.requireNonNull(throttle, "throttle");
    }
  }

  private final Conversation conversation;
  private final ContextProvider trim;
  private final ContextProvider summarize;
  private final ContextProvider mask;
  private final ToDoubleBiFunction<List<Message>, CompressionConfig> trimSavings;
  private final Settings settings;
  private final Clock clock;
  private final CompactionApplier applier;
  private ContextMeter meter;
  // Cost-aware planning (#16): null keeps the fixed-threshold policy.
  private CostPlanner planner;
  // The throttle: armed by a compaction that was applied (never by a failed one or by a check that
  // found nothing to do), with the visible message count of the new view.
  private int lastVisible = -1;
  private Instant lastCompaction = Instant.MIN;

  /**
   * @param conversation the conversation to keep within budget
   * @param trim the rule-based strategy
   * @param summarize the summary strategy
   * @param trimSavings estimated fraction of the stored text a full trim would save
   * @param settings thresholds
   * @param clock time source
   * @param listener receives every compaction (e.g. the journal)
   */
  public AutoCompactor(
      Conversation conversation,
      ContextProvider trim,
      ContextProvider summarize,
      ToDoubleBiFunction<List<Message>, CompressionConfig> trimSavings,
      Settings settings,
      Clock clock,
      CompactionListener listener) {
    this(conversation, null, trim, summarize, trimSavings, settings, clock, listener);
  }

  /**
   * A policy whose first step at the budget is observation masking in batches (keeping the last
   * {@value #MASK_KEEP_LAST} outputs): when masking alone brings the context under the budget,
   * nothing else is rewritten, so the prompt prefix — and the provider's prompt cache — stays
   * stable for longer; otherwise trim, then the summary, as without it.
   *
   * @param mask the masking strategy, or null for none
   */
  public AutoCompactor(
      Conversation conversation,
      ContextProvider mask,
      ContextProvider trim,
      ContextProvider summarize,
      ToDoubleBiFunction<List<Message>, CompressionConfig> trimSavings,
      Settings settings,
      Clock clock,
      CompactionListener listener) {
    this.mask = mask;
    this.conversation = Objects.requireNonNull(conversation, "conversation");
    this.trim = Objects.requireNonNull(trim, "trim");
    this.summarize = Objects.requireNonNull(summarize, "summarize");
    this.trimSavings = Objects.requireNonNull(trimSavings, "trimSavings");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.applier = new CompactionApplier(clock, Objects.requireNonNull(listener, "listener"));
  }

  /** Runs the policy once. Never throws for a strategy failure: that is a {@code Failed}. */
  public CompactionOutcome afterTurn(PolicyContext ctx) {
    List<Message> active = conversation.activeMessages();
    long budget = ctx.budgetTokens();
    int visible = CompactionApplier.visible(active);
    Instant now = clock.instant();
    if (visible == lastVisible && now.isBefore(lastCompaction.plus(settings.throttle()))) {
      return new CompactionOutcome.NotNeeded(
          "throttled: no new messages since the last compaction", -1, budget);
    }
    if (PendingCalls.any(active)) {
      return new CompactionOutcome.NotNeeded(
          "tool calls are pending; waiting for their results", -1, budget);
    }
    TokenCounter counter = ctx.base().counter();
    ContextMeasurement measured = meter(counter).measure(active, ctx.model());
    long tokens = measured.tokens();
    if (planner != null && mask != null && tokens < budget) {
      CompactionOutcome early = maskEarly(ctx, active, tokens, budget, counter);
      if (early != null) {
        return early;
      }
    }
    if (tokens < settings.reminderRatio() * budget) {
      return new CompactionOutcome.NotNeeded("below the budget", tokens, budget);
    }
    if (tokens < budget) {
      return remind(ctx, tokens, budget);
    }
    return compact(ctx, active, tokens, budget, counter);
  }

  private ContextMeter meter(TokenCounter counter) {
    if (meter == null || meter.counter() != counter) {
      meter = new ContextMeter(counter);
    }
    return meter;
  }

  private CompactionOutcome remind(PolicyContext ctx, long tokens, long budget) {
    String view = conversation.activeView().id();
    for (Message m : conversation.master().messages()) {
      if (view.equals(m.metadata().extra().get(REMINDER_KEY))) {
        return new CompactionOutcome.NotNeeded(
            "reminder already sent for view " + view, tokens, budget);
      }
    }
    StringBuilder text =
        new StringBuilder()
            .append("[Context notice from the context manager, not from the user] This")
            .append(" conversation is at ")
            .append(Math.round(100.0 * tokens / budget))
            .append(" % of its context budget (")
            .append(String.format("%,d of %,d tokens", tokens, budget))
            .append("). It will be compacted soon. At the next safe sub-task boundary, write down")
            .append(" the durable state needed to continue: the objective; decisions and")
            .append(" constraints; work state (done, active, blocked); the next move; and the")
            .append(" files to reload, with why.");
    ctx.compactInstructions().ifPresent(i -> text.append("\n\nProject instructions: ").append(i));
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put(REMINDER_KEY, view);
    Message reminder =
        Message.builder(Role.USER)
            .id(MessageId.appended("reminder", conversation.master().size(), text.toString()))
            .content(text.toString())
            .timestamp(clock.instant())
            .metadata(new MessageMetadata(null, null, null, null, extra))
            .build();
    conversation.append(reminder);
    return new CompactionOutcome.Reminded(reminder, tokens, budget);
  }

  private CompactionOutcome compact(
      PolicyContext ctx, List<Message> active, long tokens, long budget, TokenCounter counter) {
    Instant started = clock.instant();
    boolean latched = latched();
    CompressionConfig trimConfig =
        ctx.base().toBuilder()
            .limit(ctx.limit())
            .trimTargetRatio(settings.trimTargetRatio())
            .build();
    long stored = counter.countMessages(active);
    if (mask != null) {
      CompactionOutcome masked = maskFirst(ctx, active, tokens, budget, stored, counter, started);
      if (masked != null) {
        return masked;
      }
    }
    double estimate = trimSavings.applyAsDouble(active, trimConfig);
    if (estimate >= settings.minSavings() || latched) {
      CompactionResult r;
      try {
        r = trim.compress(active, trimConfig);
      } catch (CompactorException e) {
        return new CompactionOutcome.Failed(
            trim.name(), ManualCompactor.describe(e), tokens, budget);
      }
      long after = counter.countMessages(r.messages());
      double saved = stored == 0 ? 0 : (stored - after) / (double) stored;
      // A trim is kept when it saves enough and brings the context under the budget; a trim
      // that saves but stays over the budget would only fire again next turn, so the summary
      // runs now instead (unless summaries are latched, when the partial trim is the best there
      // is).
      long projected = tokens - (stored - after);
      if (saved >= settings.minSavings() && (projected < budget || latched)) {
        return applied(active, r, trim.name(), tokens, budget, started, counter);
      }
      if (latched) {
        return new CompactionOutcome.Failed(
            trim.name(),
            String.format(
                "trim would save only %.1f %% (< %.0f %%) and summaries are paused after a failed"
                    + " summary until %d more messages arrive",
                100 * saved, 100 * settings.minSavings(), settings.latchGrowth()),
            tokens,
            budget);
      }
    }
    return summarizeNow(ctx, active, tokens, budget, counter, started);
  }

  /**
   * Plans this policy's compactions by their cost under prompt caching ({@link CostPlanner}): below
   * the budget, tool outputs are masked as soon as that pays back its cache rewrite; at the budget,
   * masking keeps the planner's last outputs. Null (the default) keeps the fixed thresholds. Call
   * before the first turn.
   *
   * @return this policy
   */
  public AutoCompactor planner(CostPlanner planner) {
    this.planner = planner;
    return this;
  }

  /** The planner, or null. */
  public CostPlanner planner() {
    return planner;
  }

  /**
   * Early masking: every maskable tool output but the planner's last ones, when the predicted
   * saving over the expected later calls pays the cache rewrite {@code margin} times over.
   */
  private CompactionOutcome maskEarly(
      PolicyContext ctx, List<Message> active, long tokens, long budget, TokenCounter counter) {
    if (tokens < planner.planFrom(budget)) {
      return null;
    }
    // A cheap estimate first (cached per-message counts): the outputs that would be masked, the
    // first of them, and what follows it.
    int due = planner.due(active);
    if (due <= 0) {
      return null;
    }
    int first = -1;
    long gross = 0;
    int count = 0;
    int seen = 0;
    java.util.Set<String> pending = PendingCalls.of(active);
    int keepHead = ctx.base().keepHead();
    for (int i = 0; i < active.size() && seen < due; i++) {
      Message m = active.get(i);
      if (m.role() != Role.TOOL || m.uiOnly()) {
        continue;
      }
      seen++;
      if (i < keepHead
          || m.pinned()
          || m.content()
              .startsWith(dev.compactor.core.compaction.mask.MaskProvider.PLACEHOLDER_PREFIX)
          || m.metadata().extra().containsKey("compacted")
          || (m.toolCallId() != null && pending.contains(m.toolCallId()))) {
        continue;
      }
      int t = counter.countMessage(m);
      if (t < dev.compactor.core.compaction.mask.MaskProvider.DEFAULT_MIN_TOKENS) {
        continue;
      }
      if (first < 0) {
        first = i;
      }
      gross += t;
      count++;
    }
    if (first < 0) {
      return null;
    }
    long estSaved = gross - PLACEHOLDER_ESTIMATE * count;
    long tail = counter.countMessages(active.subList(first, active.size()));
    long calls = planner.expectedCalls(conversation.master().messages());
    if (!planner.pays(estSaved, tail - estSaved, calls)) {
      return null;
    }
    Instant started = clock.instant();
    Map<String, Object> extra = new LinkedHashMap<>(ctx.base().extraConfig());
    extra.put("keep_last", planner.keepLast());
    extra.put("batch", 1);
    PLANNED_MASK_OPTIONS.forEach(extra::putIfAbsent);
    CompressionConfig cfg = ctx.base().toBuilder().limit(null).extraConfig(extra).build();
    CompactionResult r;
    try {
      r = mask.compress(active, cfg);
    } catch (CompactorException e) {
      return null;
    }
    long stored = counter.countMessages(active);
    long after = counter.countMessages(r.messages());
    long saved = stored - after;
    int changed = firstChange(active, r.messages());
    long rewritten =
        changed < 0 ? 0 : counter.countMessages(r.messages().subList(changed, r.messages().size()));
    if (changed < 0 || !planner.pays(saved, rewritten, calls)) {
      return null;
    }
    CompactionResult planned =
        withNote(active, r, planner.describe("early mask", saved, rewritten, calls));
    return applied(active, planned, mask.name(), tokens, budget, started, counter);
  }

  /** Tokens a placeholder is estimated to take, for the planner's cheap first estimate. */
  private static final int PLACEHOLDER_ESTIMATE = 60;

  /** Index of the first message of {@code b} that differs from {@code a}, or -1. */
  static int firstChange(List<Message> a, List<Message> b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      if (!a.get(i).equals(b.get(i))) {
        return i;
      }
    }
    return a.size() == b.size() ? -1 : n;
  }

  private static CompactionResult withNote(List<Message> source, CompactionResult r, String note) {
    List<String> notes = new java.util.ArrayList<>(r.limitations());
    notes.add(note);
    return CompactionResult.of(source, r.messages(), notes, r.provenance());
  }

  /** The masking step: applied when it saves enough and brings the context under the budget. */
  private CompactionOutcome maskFirst(
      PolicyContext ctx,
      List<Message> active,
      long tokens,
      long budget,
      long stored,
      TokenCounter counter,
      Instant started) {
    Map<String, Object> extra = new LinkedHashMap<>(ctx.base().extraConfig());
    extra.putIfAbsent("keep_last", planner == null ? MASK_KEEP_LAST : planner.keepLast());
    extra.putIfAbsent("batch", planner == null ? MASK_BATCH : 1);
    if (planner != null) {
      PLANNED_MASK_OPTIONS.forEach(extra::putIfAbsent);
    }
    CompressionConfig cfg = ctx.base().toBuilder().limit(ctx.limit()).extraConfig(extra).build();
    CompactionResult r;
    try {
      r = mask.compress(active, cfg);
    } catch (CompactorException e) {
      return null; // masking is an optimisation: the trim and summary steps follow
    }
    long after = counter.countMessages(r.messages());
    double saved = stored == 0 ? 0 : (stored - after) / (double) stored;
    long projected = tokens - (stored - after);
    if (saved >= settings.minSavings() && projected < budget) {
      return applied(active, r, mask.name(), tokens, budget, started, counter);
    }
    return null;
  }

  private CompactionOutcome summarizeNow(
      PolicyContext ctx,
      List<Message> active,
      long tokens,
      long budget,
      TokenCounter counter,
      Instant started) {
    CompressionConfig cfg = summaryConfig(ctx, ctx.compactInstructions().orElse(null));
    CompactionResult r;
    try {
      r = summarize.compress(active, cfg);
    } catch (CompactorException e) {
      latch();
      return new CompactionOutcome.Failed(
          summarize.name(), ManualCompactor.describe(e), tokens, budget);
    }
    // A summary that makes the context no smaller (e.g. the final step alone is over the budget
    // and there is nothing left to summarize), or that saves little and stays over the budget,
    // would only make a new view on every turn: it counts as a failed summary.
    long stored = counter.countMessages(active);
    long after = counter.countMessages(r.messages());
    double saved = stored == 0 ? 0 : (stored - after) / (double) stored;
    long projected = tokens - (stored - after);
    if (after >= stored || (projected >= budget && saved < settings.minSavings())) {
      latch();
      return new CompactionOutcome.Failed(
          summarize.name(),
          String.format(
              "summary would leave %,d of %,d tokens (%.1f %% saved), over the budget of %,d",
              after, stored, 100 * saved, budget),
          tokens,
          budget);
    }
    return applied(active, r, summarize.name(), tokens, budget, started, counter);
  }

  private CompactionOutcome applied(
      List<Message> active,
      CompactionResult r,
      String strategy,
      long tokens,
      long budget,
      Instant started,
      TokenCounter counter) {
    try {
      AppliedCompaction report =
          applier.apply(
              conversation,
              active,
              r,
              strategy,
              Trigger.AUTO,
              counter.countMessages(active),
              started,
              counter);
      lastVisible = CompactionApplier.visible(conversation.activeMessages());
      lastCompaction = clock.instant();
      return new CompactionOutcome.Compacted(report, tokens, budget, java.util.Optional.empty());
    } catch (CompactorException e) {
      return new CompactionOutcome.Failed(strategy, ManualCompactor.describe(e), tokens, budget);
    }
  }

  /**
   * The standard policy: the registry's {@code trim} and {@code summarize} strategies, default
   * settings, the system clock.
   */
  public static AutoCompactor standard(Conversation conversation, CompactionListener listener) {
    ProviderRegistry registry = ProviderRegistry.global();
    ContextProvider trim = registry.get(TrimProvider.NAME);
    return new AutoCompactor(
            conversation,
            registry.get("mask"),
            trim,
            registry.get(ManualCompaction.SUMMARIZE),
            savingsOf(trim),
            Settings.DEFAULTS,
            Clock.systemUTC(),
            listener)
        .planner(CostPlanner.DEFAULTS);
  }

  /**
   * The savings estimate of a trim strategy: {@link TrimProvider#estimateSavings} for the built-in
   * one; for any other, 1.0 (always try it and judge by the result).
   */
  public static ToDoubleBiFunction<List<Message>, CompressionConfig> savingsOf(
      ContextProvider trim) {
    if (trim instanceof TrimProvider t) {
      return (messages, config) -> t.estimateSavings(messages, config).ratio();
    }
    return (messages, config) -> 1.0;
  }

  /** Summary options shared by the policies: limit = budget, tail and instructions. */
  static CompressionConfig summaryConfig(PolicyContext ctx, String instructions) {
    Map<String, Object> extra = new LinkedHashMap<>(ctx.base().extraConfig());
    // The kept tail is at most SUMMARY_TAIL_SHARE of the budget, so a summary leaves room for the
    // conversation to grow before the next compaction (a 20k tail in a 27k budget fills up within
    // a few calls); the checkpoint's identifier index keeps the names of what the tail no longer
    // holds.
    extra.put(
        "keep_recent_tokens",
        Math.min(ctx.keepRecentTokens(), Math.round(SUMMARY_TAIL_SHARE * ctx.budgetTokens())));
    if (instructions != null && !instructions.isBlank()) {
      extra.put("instructions", instructions);
    }
    return ctx.base().toBuilder()
        .limit(ctx.limit())
        .trimTargetRatio(1.0)
        .extraConfig(extra)
        .build();
  }

  /** Whether summaries are paused after a failure. */
  public boolean latched() {
    List<Message> master = conversation.master().messages();
    int visible = 0;
    Integer failedAt = null;
    for (Message m : master) {
      Object f = m.metadata().extra().get(SUMMARY_FAILED_KEY);
      if (f instanceof Number n) {
        failedAt = n.intValue();
        visible = 0;
      } else if (m.metadata().extra().containsKey(CompactionApplier.STATUS_KEY)
          && summarize.name().equals(m.metadata().extra().get(CompactionApplier.STRATEGY_KEY))) {
        // A successful summary clears the latch; a trim or a masking does not.
        failedAt = null;
      }
      if (!m.uiOnly() && failedAt != null) {
        visible++;
      }
    }
    return failedAt != null && visible < settings.latchGrowth();
  }

  private void latch() {
    int visible = 0;
    for (Message m : conversation.master().messages()) {
      if (!m.uiOnly()) {
        visible++;
      }
    }
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put(SUMMARY_FAILED_KEY, visible);
    String notice =
        "Summary failed; automatic compaction uses trim only until "
            + settings.latchGrowth()
            + " more messages arrive.";
    conversation.append(
        Message.builder(Role.SYSTEM)
            .id(MessageId.appended("summary-failed", conversation.master().size(), notice))
            .content(notice)
            .timestamp(clock.instant())
            .uiOnly(true)
            .hidden(true)
            .metadata(new MessageMetadata(null, null, null, null, extra))
            .build());
  }
}
