package dev.compactor.core;

import dev.compactor.core.budget.BudgetInputs;
import dev.compactor.core.budget.BudgetSetting;
import dev.compactor.core.budget.ContextBudget;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.OutputArchive;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.ManualCompactor;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.MasterLog;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The front door: compaction for one model and budget, with the default policy, in one object.
 *
 * <p>{@link #forModel} starts a builder; {@link Builder#build()} resolves the context budget
 * through the same layers as the command line ({@link ContextBudget}): the {@linkplain
 * Builder#budget explicit budget}, then {@value ContextBudget#BUDGET_ENV} of the environment, then
 * the configured layers of {@link Builder#budgetInputs} (if given), the model catalog's own budget
 * and the default {@code min(0.9 × window, window − max_output − 1000, 256k)}; {@code
 * COMPACTOR_CONTEXT_LENGTH} overrides the catalog's window unless {@link Builder#contextWindow}
 * sets one. Invalid values fail in {@code build()}, naming the value and its source.
 *
 * <p>The default policy is {@link AutoCompactor}'s with the {@link
 * dev.compactor.core.policy.CostPlanner#DEFAULTS cost planner}: below the budget, tool outputs are
 * masked as soon as that pays back the prompt cache it invalidates; at the budget, observation
 * masking when that alone is enough, else a trim toward 70 % of the budget, else a summary (a
 * structured checkpoint plus the recent tail, written by the offline {@link
 * dev.compactor.core.compaction.summary.ExtractiveSummarizer} unless {@link Builder#summarizer}
 * names another). Every compaction makes a new view of a lossless master log, is validated before
 * it is used, and keeps recovery references: a stub names the master message it replaced, and
 * {@link Result#recover} / {@link Session#recover} return the exact originals.
 *
 * <pre>{@code
 * Compactor compactor = Compactor.forModel("openai/gpt-4o").budget("0.5").build();
 *
 * // One-shot: compact a list of messages.
 * Compactor.Result r = compactor.compact(messages);
 * if (r.outcome() instanceof CompactionOutcome.Compacted c) {
 *   System.out.println(c.report().tokensBefore() + " -> " + c.report().tokensAfter());
 * }
 * List<Message> toSend = r.messages();
 *
 * // The live loop: append, compact after every turn, send the active view.
 * Compactor.Session session = compactor.session();
 * session.append(Message.user("Fix the failing test."));
 * // ... call the model with session.messages(), append its reply and the tool results ...
 * CompactionOutcome o = session.afterTurn();
 * }</pre>
 *
 * <p>Thread-safety: a {@code Compactor} is immutable and may be shared; {@link #compact} is safe to
 * call from any thread. A {@link Session} is not thread-safe: one per conversation, called from its
 * turn loop.
 */
public final class Compactor {

  /** The {@linkplain Builder#strategy strategy} name of the default policy. */
  public static final String AUTO = "auto";

  /** The source named for a budget given with {@link Builder#budget(String)}. */
  public static final String BUDGET_SOURCE = "Compactor.budget";

  /** The window source recorded for a window given with {@link Builder#contextWindow}. */
  public static final String WINDOW_SOURCE = "Compactor.contextWindow";

  private final String model;
  private final ResolvedBudget budget;
  private final TokenCounter counter;
  private final ContextProvider mask;
  private final ContextProvider trim;
  private final ContextProvider summarize;
  private final ProviderRegistry registry;
  private final String strategy;
  private final OutputArchive archive;
  private final CompactionListener listener;
  private final Clock clock;
  private final String instructions;
  private final long keepRecentTokens;
  private final Double identifierIndexShare;
  private final AutoCompactor.Settings policySettings;

  private Compactor(Builder b, ResolvedBudget budget) {
    this.model = b.model;
    this.budget = budget;
    this.counter = b.counter != null ? b.counter : TokenCounters.forModel(b.model);
    this.registry = b.registry != null ? b.registry : ProviderRegistry.global();
    this.mask = registry.get(MaskProvider.NAME);
    this.trim = registry.get(TrimProvider.NAME);
    this.summarize =
        b.summarizer != null
            ? new SummarizeProvider(b.summarizer)
            : registry.get(SummarizeProvider.NAME);
    this.strategy = b.strategy;
    if (!strategy.equals(AUTO)) {
      provider(strategy); // an unknown name fails in build(), not on the first compaction
    }
    this.archive = b.archive;
    this.listener = b.listener;
    this.clock = b.clock;
    this.instructions = b.instructions;
    this.keepRecentTokens = b.keepRecentTokens;
    this.identifierIndexShare = b.identifierIndexShare;
    AutoCompactor.Settings d = AutoCompactor.Settings.DEFAULTS;
    this.policySettings =
        b.reminder
            ? d
            : new AutoCompactor.Settings(
                1.0, d.trimTargetRatio(), d.minSavings(), d.latchGrowth(), d.throttle());
  }

  /**
   * Starts a builder for a model.
   *
   * @param model {@code provider/model} as the catalog names it (e.g. {@code openai/gpt-4o}, {@code
   *     anthropic/claude-sonnet-4-5}); an unknown model gets a 128,000-token window and 8,192
   *     output tokens
   * @throws IllegalArgumentException when {@code model} is null or blank
   */
  public static Builder forModel(String model) {
    if (model == null || model.isBlank()) {
      throw new IllegalArgumentException("model must be named, e.g. \"openai/gpt-4o\"");
    }
    return new Builder(model.strip());
  }

  /** The model the budget and the token counts are for. */
  public String model() {
    return model;
  }

  /** The resolved context budget, with the layer it came from. */
  public ResolvedBudget budget() {
    return budget;
  }

  /** How tokens are counted (jtokkit for OpenAI models, a calibrated estimate for others). */
  public TokenCounter counter() {
    return counter;
  }

  /** The strategy {@link #compact} and {@link Session#compact()} use: {@value #AUTO} or a name. */
  public String strategy() {
    return strategy;
  }

  /**
   * Compacts a list of messages (for example a conversation read from a file, or the history a
   * stateless request carries). The messages become the master log of a new in-memory conversation;
   * the result holds the outcome, the view to send and that conversation for recovery.
   *
   * <p>With the default strategy the policy's compaction step runs when the messages are at or over
   * the budget (no 90 % reminder, no throttle); below it the outcome is {@code NotNeeded}. As in
   * the automatic policy, nothing is compacted while the last assistant message has tool calls
   * without results. With a named {@linkplain Builder#strategy strategy} that strategy runs as a
   * manual compaction would.
   *
   * @param messages the conversation, oldest first; ids must be distinct
   * @return the outcome, never null; a strategy failure is a {@code Failed} outcome, not an
   *     exception
   * @throws IllegalArgumentException when two messages share an id
   */
  public Result compact(List<Message> messages) {
    Objects.requireNonNull(messages, "messages");
    Session session = session(new InMemoryMasterLog(messages));
    CompactionOutcome outcome = session.compact();
    return new Result(outcome, session.messages(), session.conversation());
  }

  /** A live session over a new, empty in-memory conversation. */
  public Session session() {
    return session(new InMemoryMasterLog());
  }

  /**
   * A live session over the messages of {@code master} (all of them in its first view).
   *
   * @param master the master log, e.g. one restored from storage; it is appended to
   */
  public Session session(MasterLog master) {
    return session(new InMemoryConversation(Objects.requireNonNull(master, "master")));
  }

  /**
   * A live session over an existing conversation (e.g. a {@code StoredConversation} of {@code
   * compactor-log}, whose views and journal persist), continuing from its active view.
   */
  public Session session(Conversation conversation) {
    return new Session(Objects.requireNonNull(conversation, "conversation"));
  }

  private ContextProvider provider(String name) {
    if (name.equals(SummarizeProvider.NAME)) {
      return summarize;
    }
    return registry.get(name);
  }

  private PolicyContext context() {
    CompressionConfig.Builder b = CompressionConfig.builder().counter(counter).archive(archive);
    if (identifierIndexShare != null) {
      b.extraConfig(Map.of(SummarizeProvider.INDEX_SHARE, identifierIndexShare));
    }
    CompressionConfig base = b.build();
    return new PolicyContext(
        model,
        budget.tokens(),
        base,
        java.util.Optional.ofNullable(instructions),
        keepRecentTokens);
  }

  /**
   * The cost planner the automatic policy ({@link Session#afterTurn}, and {@link #compact} with the
   * default strategy) plans with below the budget, or null when no masking strategy is registered;
   * {@link dev.compactor.core.policy.CostPlanner#mayMaskEarly} tells when it may act.
   */
  public dev.compactor.core.policy.CostPlanner planner() {
    return mask == null ? null : dev.compactor.core.policy.CostPlanner.DEFAULTS;
  }

  private AutoCompactor policy(Conversation conversation, AutoCompactor.Settings settings) {
    return new AutoCompactor(
            conversation,
            mask,
            trim,
            summarize,
            AutoCompactor.savingsOf(trim),
            settings,
            clock,
            listener)
        .planner(planner());
  }

  /**
   * What {@link Compactor#compact} did.
   *
   * @param outcome what the policy or strategy did (the sealed outcome: not needed, compacted,
   *     failed)
   * @param messages the view to send: the active view's messages without UI-only ones
   * @param conversation the in-memory conversation holding the master log and every view
   */
  public record Result(
      CompactionOutcome outcome, List<Message> messages, Conversation conversation) {
    public Result {
      Objects.requireNonNull(outcome, "outcome");
      messages = List.copyOf(messages);
      Objects.requireNonNull(conversation, "conversation");
    }

    /** Whether a new, smaller view was made. */
    public boolean compacted() {
      return outcome instanceof CompactionOutcome.Compacted;
    }

    /**
     * The original messages behind an id of the view: the message itself, or every message a stub,
     * truncated result or checkpoint covers, exactly as given.
     *
     * @throws CompactorException when no message or synthesized entry has this id
     */
    public List<Message> recover(MessageId id) {
      return conversation.recover(id);
    }
  }

  /**
   * One conversation under the default policy: append messages, run {@link #afterTurn} after every
   * turn (a response appended, or tool results appended), send {@link #messages}. The policy sends
   * the 90 % reminder once per view, compacts at the budget, waits while tool calls are pending and
   * is throttled to one check a minute while no visible message arrives (see {@link
   * AutoCompactor}). Not thread-safe.
   */
  public final class Session {
    private final Conversation conversation;
    private final AutoCompactor policy;
    private final PolicyContext ctx;

    private Session(Conversation conversation) {
      this.conversation = conversation;
      this.policy = policy(conversation, policySettings);
      this.ctx = context();
    }

    /**
     * Appends a message to the master log and the active view.
     *
     * @return this session
     * @throws IllegalArgumentException when a message with the same id is already stored
     */
    public Session append(Message message) {
      conversation.append(Objects.requireNonNull(message, "message"));
      return this;
    }

    /** Appends messages in order (see {@link #append(Message)}). */
    public Session appendAll(List<Message> messages) {
      messages.forEach(this::append);
      return this;
    }

    /** Runs the automatic policy once; never throws for a strategy failure. */
    public CompactionOutcome afterTurn() {
      return policy.afterTurn(ctx);
    }

    /**
     * Compacts now, whatever the throttle and the reminder: with the default strategy, the policy's
     * compaction step when the context is at or over the budget; with a named strategy, that
     * strategy as {@code /compact} runs it.
     */
    public CompactionOutcome compact() {
      if (strategy.equals(AUTO)) {
        AutoCompactor.Settings d = AutoCompactor.Settings.DEFAULTS;
        AutoCompactor.Settings now =
            new AutoCompactor.Settings(
                1.0, d.trimTargetRatio(), d.minSavings(), d.latchGrowth(), Duration.ZERO);
        return policy(conversation, now).afterTurn(ctx);
      }
      return compact(strategy, null);
    }

    /**
     * Compacts now with a named strategy ({@code trim}, {@code mask}, {@code summarize} or any
     * registered one), as {@code /compact} does.
     *
     * @param instructions extra instructions for {@code summarize}, or null
     * @throws CompactorException when no strategy has that name
     */
    public CompactionOutcome compact(String strategyName, String instructions) {
      ContextProvider p = provider(Objects.requireNonNull(strategyName, "strategy"));
      ManualCompactor manual = new ManualCompactor(name -> p, clock, listener);
      return manual.compact(conversation, p.name(), instructions, ctx);
    }

    /** The view to send: the active view's messages without UI-only ones. */
    public List<Message> messages() {
      return conversation.activeMessages().stream().filter(m -> !m.uiOnly()).toList();
    }

    /**
     * The context size of {@link #messages()} as the policy measures it (usage anchor or count).
     */
    public long tokens() {
      return new ContextMeter(counter).measure(conversation.activeMessages(), model).tokens();
    }

    /**
     * The original messages behind an id of any view: the master message itself, or every master
     * message a synthesized entry covers.
     *
     * @throws CompactorException when no master message or synthesized entry has this id
     */
    public List<Message> recover(MessageId id) {
      return conversation.recover(id);
    }

    /** The conversation: the master log and every view. */
    public Conversation conversation() {
      return conversation;
    }

    /** The compactor this session belongs to. */
    public Compactor compactor() {
      return Compactor.this;
    }
  }

  /** Builder of a {@link Compactor}; only the model is required. Not thread-safe. */
  public static final class Builder {
    private final String model;
    private BudgetSetting budget;
    private Long contextWindow;
    private Integer maxOutputTokens;
    private Map<String, String> env;
    private ModelCatalog catalog = ModelCatalog.builtIn();
    private BudgetInputs budgetInputs;
    private TokenCounter counter;
    private Summarizer summarizer;
    private ProviderRegistry registry;
    private String strategy = AUTO;
    private OutputArchive archive = OutputArchive.NONE;
    private CompactionListener listener = CompactionListener.NONE;
    private Clock clock = Clock.systemUTC();
    private String instructions;
    private long keepRecentTokens = PolicyContext.DEFAULT_KEEP_RECENT_TOKENS;
    private Double identifierIndexShare;
    private boolean reminder = true;

    private Builder(String model) {
      this.model = model;
    }

    /**
     * The explicit context budget: a fraction of the window ({@code "0.5"}) or tokens ({@code
     * "300000"}); the first layer, clamped to {@code window − max_output − 1000}.
     */
    public Builder budget(String budget) {
      return budget(BudgetSetting.of(budget, BUDGET_SOURCE));
    }

    /** The explicit context budget with its own source label (e.g. {@code --context-budget}). */
    public Builder budget(BudgetSetting budget) {
      this.budget = Objects.requireNonNull(budget, "budget");
      return this;
    }

    /**
     * The model's context window, instead of the catalog's and of {@code COMPACTOR_CONTEXT_LENGTH}
     * (e.g. a local model served with a smaller window).
     *
     * @throws IllegalArgumentException when {@code tokens < 1}
     */
    public Builder contextWindow(long tokens) {
      if (tokens < 1) {
        throw new IllegalArgumentException("context window must be >= 1 token, got " + tokens);
      }
      this.contextWindow = tokens;
      return this;
    }

    /** Tokens reserved for the response, instead of the model's output limit. */
    public Builder maxOutputTokens(int tokens) {
      Bounds.atLeast(0, tokens, "max output tokens");
      this.maxOutputTokens = tokens;
      return this;
    }

    /**
     * The environment the budget layers read ({@value ContextBudget#BUDGET_ENV}, {@code
     * COMPACTOR_CONTEXT_LENGTH}); default {@code System.getenv()}.
     */
    public Builder environment(Map<String, String> env) {
      this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
      return this;
    }

    /** The catalog the model is looked up in; default {@link ModelCatalog#builtIn()}. */
    public Builder catalog(ModelCatalog catalog) {
      this.catalog = Objects.requireNonNull(catalog, "catalog");
      return this;
    }

    /**
     * Every budget layer at once, e.g. from {@code CompactorConfig.budgetInputs} of {@code
     * compactor-log}, which adds the per-model, project and user configuration files. Its model
     * replaces the catalog lookup; {@link #budget}, {@link #contextWindow}, {@link
     * #maxOutputTokens} and {@link #environment}, when also given, take precedence over its values.
     */
    public Builder budgetInputs(BudgetInputs inputs) {
      this.budgetInputs = Objects.requireNonNull(inputs, "inputs");
      return this;
    }

    /** How tokens are counted; default {@link TokenCounters#forModel} of the model. */
    public Builder counter(TokenCounter counter) {
      this.counter = Objects.requireNonNull(counter, "counter");
      return this;
    }

    /**
     * Who writes the summary checkpoint; default the offline extractive summarizer (e.g. {@code
     * ModelSummarizer.builder(chatModel).build()} to ask a model).
     */
    public Builder summarizer(Summarizer summarizer) {
      this.summarizer = Objects.requireNonNull(summarizer, "summarizer");
      return this;
    }

    /**
     * The strategy {@link Compactor#compact} and {@link Session#compact()} use: {@value #AUTO} (the
     * default policy, the default) or a registered strategy ({@code trim}, {@code mask}, {@code
     * summarize}, a plugin's name). {@link Session#afterTurn} always runs the policy.
     */
    public Builder strategy(String strategy) {
      Objects.requireNonNull(strategy, "strategy");
      if (strategy.isBlank()) {
        throw new IllegalArgumentException("strategy must not be blank");
      }
      this.strategy = strategy.strip();
      return this;
    }

    /** Where strategies are looked up; default {@link ProviderRegistry#global()}. */
    public Builder registry(ProviderRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * Where removed content is saved for recovery (e.g. the on-disk store's {@code tool-outputs/});
     * default none: stubs name the master message, which the conversation keeps.
     */
    public Builder archive(OutputArchive archive) {
      this.archive = Objects.requireNonNull(archive, "archive");
      return this;
    }

    /** Receives every compaction (e.g. to write a journal); default none. */
    public Builder listener(CompactionListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /** The time source of views, reports and the throttle; default the system clock (UTC). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Project-wide instructions for summaries and the reminder ({@code compact_instructions}). */
    public Builder instructions(String instructions) {
      this.instructions = instructions;
      return this;
    }

    /**
     * Whether a {@link Session}'s automatic policy sends the 90 % reminder (default on, as the
     * seed's policy does). Off, the policy only compacts at the budget: for hosts where an injected
     * user-role notice would put words in the user's mouth (a proxy, a framework's chat memory).
     */
    public Builder reminder(boolean on) {
      this.reminder = on;
      return this;
    }

    /** Tokens of recent history a summary keeps verbatim (default 20,000; capped by the policy). */
    public Builder keepRecentTokens(long tokens) {
      Bounds.atLeast(0, tokens, "keep-recent tokens");
      this.keepRecentTokens = tokens;
      return this;
    }

    /**
     * The share of the budget a summary's checkpoint may give to its identifier index (the names of
     * the summarized span it would otherwise lose; see {@link SummarizeProvider#INDEX_SHARE}),
     * instead of the default {@link
     * dev.compactor.core.compaction.text.Identifiers#INDEX_LIMIT_SHARE}. A smaller index makes each
     * summary cheaper to send and keeps fewer names.
     *
     * @param share in [0, 1]; 0 lists no index
     * @throws IllegalArgumentException when {@code share} is outside [0, 1]
     */
    public Builder identifierIndexShare(double share) {
      if (!(share >= 0 && share <= 1)) {
        throw new IllegalArgumentException(
            "the identifier index's share of the budget must be in [0, 1], got " + share);
      }
      this.identifierIndexShare = share;
      return this;
    }

    /**
     * Resolves the budget and builds the compactor.
     *
     * @throws dev.compactor.core.catalog.InvalidSettingException when a budget layer, {@value
     *     ContextBudget#BUDGET_ENV} or {@code COMPACTOR_CONTEXT_LENGTH} holds an invalid value (the
     *     message names the value and its source)
     * @throws CompactorException when the strategy is not registered
     */
    public Compactor build() {
      Map<String, String> environment =
          env != null ? env : budgetInputs != null ? budgetInputs.env() : System.getenv();
      ModelInfo info = budgetInputs != null ? budgetInputs.model() : catalog.lookup(model);
      if (contextWindow != null) {
        info = info.withContextWindow(contextWindow, WINDOW_SOURCE);
        // An explicit window is the first word on the window, as an explicit budget is on the
        // budget: the environment's COMPACTOR_CONTEXT_LENGTH must not replace it.
        Map<String, String> without = new HashMap<>(environment);
        without.remove(ModelCatalog.CONTEXT_LENGTH_ENV);
        environment = without;
      }
      BudgetInputs.Builder b = BudgetInputs.builder(info).env(environment);
      if (budgetInputs != null) {
        b.explicit(budgetInputs.explicit())
            .perModel(budgetInputs.perModel())
            .project(budgetInputs.project())
            .user(budgetInputs.user())
            .headroom(budgetInputs.headroom());
        if (budgetInputs.maxOutputTokens() != null) {
          b.maxOutputTokens(budgetInputs.maxOutputTokens());
        }
      }
      if (budget != null) {
        b.explicit(budget);
      }
      if (maxOutputTokens != null) {
        b.maxOutputTokens(maxOutputTokens);
      }
      return new Compactor(this, ContextBudget.resolve(b.build()));
    }
  }
}
