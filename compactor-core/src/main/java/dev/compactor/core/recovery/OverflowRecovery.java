package dev.compactor.core.recovery;

import dev.compactor.core.Bounds;
import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ViewBuilder;
import dev.compactor.core.compaction.trim.TrimOutcome;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.internal.CompactionApplier;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.InputFingerprints;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.policy.Trigger;
import dev.compactor.core.recovery.RecoveryReport.Attempt;
import dev.compactor.core.recovery.RecoveryReport.Outcome;
import dev.compactor.core.recovery.RecoveryReport.Rung;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewValidator;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Sends a conversation to a model and, when the provider answers that the prompt does not fit its
 * context window, shrinks the active view and sends again — for any {@link ChatModel}.
 *
 * <ol>
 *   <li>The active view is sent as it is. Any answer but a {@link ContextOverflowException} ends
 *       the call; an overflow after output already streamed ({@link
 *       ContextOverflowException#hasPartialOutput()}) is rethrown unchanged, never retried.
 *   <li>Retry 1 trims (the {@code trim} strategy without the automatic policy's 10 % savings gate)
 *       toward the target. Later retries remove old whole steps — a user or assistant turn with the
 *       tool results after it — oldest first, toward the target.
 *   <li>The target is 70 % of the previous attempt's input. When the provider reported the prompt
 *       size and the window, the previous input scaled by {@code window / prompt} (the window less
 *       the request's output limit when the prompt alone fit) with a 10 % margin: as the target of
 *       retry 1, and as a tighter target of later retries when it is lower.
 *   <li>Every retry is strictly smaller (in the policy's token count) than the attempt before. A
 *       candidate that is not is never sent: recovery moves to the next, stronger step — from the
 *       trim to removing steps, and from removing steps toward the target to removing more steps,
 *       up to every removable one. Only when nothing removable is left does it give up.
 *   <li>Never changed: the protected head (the leading system messages, widened to {@code keepHead}
 *       messages), steps with a pinned message, the newest user request and the final step (with a
 *       pending call). Every retry's view is valid under {@link ViewValidator} (Anthropic's role
 *       rules too when the model speaks the Messages API).
 *   <li>At most {@link Settings#maxRetries()} (8) retries.
 * </ol>
 *
 * <p><b>Views.</b> Retries are built as candidate views and sent without switching the
 * conversation. When a retry is answered, its view becomes active through the usual path (new view
 * id, journal entry through the {@link CompactionListener} with trigger {@code overflow}, UI-only
 * status message) and the reply is re-stamped against the new active messages. When recovery fails
 * — retries exhausted, no smaller input possible, partial output, any other error — the
 * conversation is untouched: the same active view, no new view, nothing appended.
 *
 * <p><b>Nothing is lost.</b> The master log is never rewritten. Each run of removed steps is
 * replaced by one short user-role marker, {@code [N earlier messages removed to fit the context
 * window; recoverable from the master log as overflow-…]}, a synthesized entry that covers the
 * removed messages, so {@link Conversation#recover} returns them; a later removal that swallows a
 * marker covers that marker's messages too. A user-role marker is valid where a removed run begins,
 * also as Anthropic's first non-system message.
 *
 * <p>Not thread-safe with respect to the conversation: do not append to it during a call. The
 * recovery object itself is immutable and may be shared.
 *
 * <pre>{@code
 * OverflowRecovery recovery = new OverflowRecovery(Clock.systemUTC(), journal::append);
 * RecoveryResult r = recovery.call(conversation, model,
 *     ChatRequest.builder().messages(conversation.activeMessages()).tools(tools).build(), ctx);
 * conversation.append(r.response().message());
 * if (r.report().overflowed()) log.info("recovered after {} retries", r.report().retries());
 * }</pre>
 */
public final class OverflowRecovery {
  /**
   * {@code metadata.extra} key of a removal marker; its value is the number of original messages
   * the marker stands for.
   */
  public static final String MARKER_KEY = "overflow_marker";

  /** Strategy name reported when the kept view only trimmed. */
  public static final String STRATEGY_TRIM = TrimProvider.NAME;

  /** Strategy name reported when the kept view removed steps. */
  public static final String STRATEGY_DROP = "drop-steps";

  /**
   * Limits of the recovery.
   *
   * @param maxRetries retries after the original request, &ge; 0 (8)
   * @param stepRatio each retry aims at this fraction of the previous input, in (0, 1) (0.7)
   * @param providerMargin safety factor on a target derived from the provider's counts, in (0, 1]
   *     (0.9)
   */
  public record Settings(int maxRetries, double stepRatio, double providerMargin) {
    /** 8 retries, 70 %, 10 % margin. */
    public static final Settings DEFAULTS = new Settings(8, 0.7, 0.9);

    public Settings {
      Bounds.atLeast(0, maxRetries, "maxRetries");
      if (!(stepRatio > 0 && stepRatio < 1)) {
        throw new IllegalArgumentException("stepRatio must be in (0, 1), got " + stepRatio);
      }
      if (!(providerMargin > 0 && providerMargin <= 1)) {
        throw new IllegalArgumentException(
            "providerMargin must be in (0, 1], got " + providerMargin);
      }
    }
  }

  private final Settings settings;
  private final Clock clock;
  private final CompactionApplier applier;
  private final TrimProvider trim = new TrimProvider();

  /** Recovery with {@link Settings#DEFAULTS}. */
  public OverflowRecovery(Clock clock, CompactionListener listener) {
    this(Settings.DEFAULTS, clock, listener);
  }

  /**
   * @param settings limits
   * @param clock time source of reports
   * @param listener receives the compaction of a successful recovery (e.g. the journal)
   */
  public OverflowRecovery(Settings settings, Clock clock, CompactionListener listener) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.applier = new CompactionApplier(clock, Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Sends the conversation with {@link ChatModel#chat}, recovering from context overflow.
   *
   * @param conversation the conversation; its active messages are sent
   * @param model the model
   * @param template the request to send; its messages are replaced by the active view's (or a
   *     smaller candidate's) in every attempt, all other fields are kept
   * @param ctx supplies the token counter, {@code keepHead} and the trim's archive (all of {@code
   *     ctx.base()}); the budget is not used — the provider decides what fits
   * @return the response and what was done
   * @throws RecoveryFailedException when every retry overflowed or nothing smaller could be sent;
   *     the active view is unchanged
   * @throws ContextOverflowException unchanged, when output had streamed before the overflow
   * @throws dev.compactor.core.model.ModelException any other model error, unchanged (the active
   *     view is unchanged)
   */
  public RecoveryResult call(
      Conversation conversation, ChatModel model, ChatRequest template, PolicyContext ctx) {
    Objects.requireNonNull(model, "model");
    return run(conversation, template, ctx, model::chat, targetOf(model));
  }

  /**
   * As {@link #call}, streaming with {@link ChatModel#stream}: the listener receives the output of
   * the attempt that is answered (attempts that overflowed produced none).
   */
  public RecoveryResult stream(
      Conversation conversation,
      ChatModel model,
      ChatRequest template,
      PolicyContext ctx,
      StreamListener listener) {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(listener, "listener");
    return run(conversation, template, ctx, r -> model.stream(r, listener), targetOf(model));
  }

  /**
   * As {@link #call}, with any way of sending a request (a wrapped model, a test double).
   *
   * @param send sends one request; throws {@link ContextOverflowException} when it does not fit
   * @param target the provider role rules every retry's view must keep
   */
  public RecoveryResult call(
      Conversation conversation,
      ChatRequest template,
      PolicyContext ctx,
      Function<ChatRequest, ChatResponse> send,
      ViewValidator.Target target) {
    return run(conversation, template, ctx, send, target);
  }

  private static ViewValidator.Target targetOf(ChatModel model) {
    return model.api() == ModelApi.ANTHROPIC_MESSAGES
        ? ViewValidator.Target.ANTHROPIC
        : ViewValidator.Target.GENERIC;
  }

  private RecoveryResult run(
      Conversation conversation,
      ChatRequest template,
      PolicyContext ctx,
      Function<ChatRequest, ChatResponse> send,
      ViewValidator.Target target) {
    Objects.requireNonNull(conversation, "conversation");
    Objects.requireNonNull(template, "template");
    Objects.requireNonNull(ctx, "ctx");
    Objects.requireNonNull(send, "send");
    Instant started = clock.instant();
    View original = conversation.activeView();
    List<Message> src = conversation.activeMessages();
    TokenCounter counter = ctx.base().counter();
    long tokens0 = counter.countMessages(src);
    List<Attempt> attempts = new ArrayList<>();
    Attempt first =
        new Attempt(
            0,
            Rung.ORIGINAL,
            original,
            0,
            tokens0,
            visible(src),
            0,
            Outcome.ANSWERED,
            OptionalLong.empty(),
            OptionalLong.empty());
    ContextOverflowException overflow;
    try {
      ChatResponse r = send.apply(template.withMessages(src));
      attempts.add(first);
      return new RecoveryResult(r, new RecoveryReport(original.id(), attempts, null));
    } catch (ContextOverflowException e) {
      if (e.hasPartialOutput()) {
        throw e;
      }
      attempts.add(first.answered(Outcome.OVERFLOW, e.promptTokens(), e.contextWindow()));
      overflow = e;
    }

    ViewValidator validator = validatorFor(target, src);
    StepPlan plan = new StepPlan(src, ctx.base().keepHead());
    Candidates candidates = new Candidates(conversation, original, plan, validator, counter, ctx);
    long prev = tokens0;
    for (int retry = 1; retry <= settings.maxRetries(); retry++) {
      long goal = target(retry, prev, overflow, template);
      Candidate c = candidates.next(retry, goal, prev);
      if (c == null) {
        throw failed(
            "the prompt still does not fit after "
                + (retry - 1)
                + (retry - 1 == 1 ? " retry" : " retries")
                + " and nothing removable is left: "
                + candidates.protectedSummary(),
            overflow,
            original,
            attempts);
      }
      Attempt a =
          new Attempt(
              retry,
              c.rung(),
              c.view(),
              goal,
              c.tokens(),
              visible(c.messages()),
              c.built().changedVisible(),
              Outcome.ANSWERED,
              OptionalLong.empty(),
              OptionalLong.empty());
      ChatResponse r;
      try {
        r = send.apply(template.withMessages(c.messages()));
      } catch (ContextOverflowException e) {
        if (e.hasPartialOutput()) {
          attempts.add(a.answered(Outcome.PARTIAL_OUTPUT, e.promptTokens(), e.contextWindow()));
          throw e;
        }
        attempts.add(a.answered(Outcome.OVERFLOW, e.promptTokens(), e.contextWindow()));
        overflow = e;
        candidates.commit(c);
        prev = c.tokens();
        continue;
      } catch (RuntimeException e) {
        attempts.add(a.answered(Outcome.ERROR, OptionalLong.empty(), OptionalLong.empty()));
        throw e;
      }
      attempts.add(a);
      candidates.commit(c);
      AppliedCompaction report =
          applier.apply(
              conversation,
              src,
              c.result(),
              c.strategy(),
              Trigger.OVERFLOW,
              tokens0,
              started,
              counter);
      return new RecoveryResult(
          restamp(r, conversation), new RecoveryReport(original.id(), attempts, report));
    }
    throw failed(
        "the prompt still does not fit after "
            + settings.maxRetries()
            + " retries (input "
            + tokens0
            + " → "
            + prev
            + " tokens)",
        overflow,
        original,
        attempts);
  }

  private static RecoveryFailedException failed(
      String why, ContextOverflowException last, View original, List<Attempt> attempts) {
    return new RecoveryFailedException(
        "overflow recovery failed: " + why + "; the active view " + original.id() + " is unchanged",
        last,
        new RecoveryReport(original.id(), attempts, null));
  }

  /** Anthropic's role rules only when the original view keeps them; the generic ones always. */
  private static ViewValidator validatorFor(ViewValidator.Target target, List<Message> src) {
    if (target != ViewValidator.Target.GENERIC && !new ViewValidator(target).isValid(src)) {
      return new ViewValidator();
    }
    return new ViewValidator(target);
  }

  /**
   * The token target of a retry: {@code stepRatio} of the previous input; the provider's counts,
   * when given, set retry 1's target and tighten later ones.
   */
  long target(int retry, long prev, ContextOverflowException overflow, ChatRequest template) {
    long step = (long) Math.floor(prev * settings.stepRatio());
    OptionalLong fromProvider = providerTarget(prev, overflow, template);
    long t;
    if (fromProvider.isPresent()) {
      t = retry == 1 ? fromProvider.getAsLong() : Math.min(step, fromProvider.getAsLong());
    } else {
      t = step;
    }
    return Math.max(1, Math.min(t, prev - 1));
  }

  private OptionalLong providerTarget(
      long prev, ContextOverflowException overflow, ChatRequest template) {
    if (overflow.promptTokens().isEmpty() || overflow.contextWindow().isEmpty()) {
      return OptionalLong.empty();
    }
    long prompt = overflow.promptTokens().getAsLong();
    long window = overflow.contextWindow().getAsLong();
    if (prompt <= 0 || window <= 0) {
      return OptionalLong.empty();
    }
    double available = window;
    if (prompt <= window) {
      // The prompt alone fit: the request's output limit pushed it over.
      Integer out = template.maxOutputTokens();
      if (out == null || out >= window) {
        return OptionalLong.empty();
      }
      available = window - out;
    }
    double ratio = available / prompt;
    if (ratio >= 1) {
      return OptionalLong.empty();
    }
    return OptionalLong.of((long) Math.floor(prev * ratio * settings.providerMargin()));
  }

  private static ChatResponse restamp(ChatResponse r, Conversation conversation) {
    InputFingerprint fp = r.message().metadata().input();
    if (fp == null) {
      return r;
    }
    Message stamped =
        InputFingerprints.stamp(r.message(), conversation.activeMessages(), fp.model());
    return new ChatResponse(
        stamped,
        r.usage(),
        r.finishReason(),
        r.rawFinishReason(),
        r.compaction(),
        r.responseId(),
        r.model());
  }

  static int visible(List<Message> messages) {
    int n = 0;
    for (Message m : messages) {
      if (!m.uiOnly()) {
        n++;
      }
    }
    return n;
  }

  /** One prepared retry: the candidate view, its messages, and the state it leaves. */
  record Candidate(
      Rung rung,
      StepPlan.Built built,
      View view,
      List<Message> messages,
      long tokens,
      Message[] current,
      boolean[] dropped,
      List<String> notes) {
    CompactionResult result() {
      return new CompactionResult(
          built.result().messages(),
          built.result().sourceDigest(),
          built.result().coveredThrough(),
          notes,
          built.result().provenance());
    }

    String strategy() {
      return built.droppedUnits() > 0 ? STRATEGY_DROP : STRATEGY_TRIM;
    }
  }

  /** Prepares retries on top of what was sent before: the ladder of stronger steps. */
  private final class Candidates {
    private final Conversation conversation;
    private final View original;
    private final StepPlan plan;
    private final ViewValidator validator;
    private final TokenCounter counter;
    private final PolicyContext ctx;
    private Message[] current;
    private boolean[] dropped;
    private final List<String> notes = new ArrayList<>();

    Candidates(
        Conversation conversation,
        View original,
        StepPlan plan,
        ViewValidator validator,
        TokenCounter counter,
        PolicyContext ctx) {
      this.conversation = conversation;
      this.original = original;
      this.plan = plan;
      this.validator = validator;
      this.counter = counter;
      this.ctx = ctx;
      this.current = plan.source().toArray(new Message[0]);
      this.dropped = new boolean[plan.units()];
    }

    void commit(Candidate c) {
      current = c.current();
      dropped = c.dropped();
      notes.clear();
      notes.addAll(c.notes());
    }

    /** The first rung that gives a valid input strictly smaller than {@code prev}, or null. */
    Candidate next(int retry, long goal, long prev) {
      if (retry == 1) {
        Candidate t = trimmed(goal, prev);
        if (t != null) {
          return t;
        }
      }
      return withDrops(goal, prev);
    }

    private Candidate trimmed(long goal, long prev) {
      CompressionConfig cfg =
          ctx.base().toBuilder()
              .limit((int) Math.min(Integer.MAX_VALUE, Math.max(1, goal)))
              .trimTargetRatio(1.0)
              .keepHead(plan.headEnd())
              .build();
      // Protected messages go in pinned, so the trim works around them and still aims at the goal;
      // but a protected tool output that alone exceeds the goal can never fit: the trim truncates
      // it (head and tail kept, the middle recoverable, the command named), as it does in a final
      // step.
      List<Message> input = new ArrayList<>(plan.size());
      boolean[] oversized = new boolean[plan.size()];
      for (int i = 0; i < plan.size(); i++) {
        Message m = plan.source().get(i);
        if (plan.isProtectedIndex(i)
            && !m.pinned()
            && m.role() == Role.TOOL
            && counter.countMessage(m) > goal) {
          oversized[i] = true;
          input.add(m);
        } else {
          input.add(
              plan.isProtectedIndex(i) && !m.pinned() ? m.toBuilder().pinned(true).build() : m);
        }
      }
      TrimOutcome t;
      try {
        t = trim.trim(input, cfg);
      } catch (CompactorException e) {
        return null;
      }
      List<Message> out = t.result().messages();
      if (!t.changed() || out.size() != plan.size()) {
        return null;
      }
      Message[] next = current.clone();
      int kept = 0;
      for (int i = 0; i < out.size(); i++) {
        Message m = out.get(i);
        Message o = plan.source().get(i);
        if (m.equals(input.get(i))
            || (plan.isProtectedIndex(i) && !oversized[i])
            || m.id().equals(o.id())) {
          continue; // unchanged, protected (stays verbatim), or not a one-for-one replacement
        }
        next[i] = m;
        kept++;
      }
      if (kept == 0) {
        return null;
      }
      List<String> n = new ArrayList<>(notes);
      for (String l : t.result().limitations()) {
        n.add("trim: " + l);
      }
      Candidate c = candidate(Rung.TRIM, next, dropped, n);
      return c != null && c.tokens() < prev ? c : null;
    }

    private Candidate withDrops(long goal, long prev) {
      List<Integer> order = new ArrayList<>();
      for (int u : plan.droppable()) {
        if (!dropped[u]) {
          order.add(u);
        }
      }
      boolean[] d = dropped.clone();
      int idx = 0;
      long estimate = prev;
      while (true) {
        boolean added = false;
        while (idx < order.size() && (estimate > goal || !added)) {
          int u = order.get(idx++);
          d[u] = true;
          estimate -= plan.unitTokens(current, u, counter);
          added = true;
        }
        if (!added) {
          return null;
        }
        Candidate c = candidate(Rung.DROP_STEPS, current, d.clone(), notesFor(d));
        boolean usable = c != null && c.tokens() < prev;
        if (usable && (c.tokens() <= goal || idx == order.size())) {
          return c;
        }
        if (idx == order.size()) {
          return null;
        }
        // Over the goal, not smaller, or invalid: remove more steps.
        estimate = c == null ? estimate : c.tokens();
      }
    }

    private List<String> notesFor(boolean[] d) {
      int units = 0;
      int messages = 0;
      for (int u = 0; u < d.length; u++) {
        if (d[u]) {
          units++;
          for (int i = plan.start(u); i < plan.end(u); i++) {
            if (!plan.source().get(i).uiOnly()) {
              messages++;
            }
          }
        }
      }
      List<String> n = new ArrayList<>();
      for (String s : notes) {
        if (s.startsWith("trim: ")) {
          n.add(s);
        }
      }
      n.add(
          units
              + " old steps ("
              + messages
              + " messages) removed to fit the context window; each removed run is a marker"
              + " whose messages Conversation.recover returns");
      return n;
    }

    /** The candidate for a state, or null when its view would be invalid. */
    private Candidate candidate(Rung rung, Message[] cur, boolean[] d, List<String> n) {
      StepPlan.Built built = plan.build(cur, d);
      View view =
          ViewBuilder.build(original, plan.source(), built.result(), conversation.nextViewId());
      List<Message> messages = conversation.resolve(view);
      if (!validator.isValid(messages)) {
        return null;
      }
      return new Candidate(
          rung, built, view, messages, counter.countMessages(messages), cur, d, List.copyOf(n));
    }

    String protectedSummary() {
      List<Message> src = plan.source();
      long head = 0;
      long rest = 0;
      long fin = 0;
      for (int i = 0; i < src.size(); i++) {
        if (!plan.isProtectedIndex(i)) {
          continue;
        }
        long t = counter.countMessage(current[i]);
        if (i < plan.headEnd()) {
          head += t;
        } else if (i >= plan.finalStart()) {
          fin += t;
        } else {
          rest += t;
        }
      }
      return "protected head "
          + head
          + " tokens, pinned steps and the newest user request "
          + rest
          + " tokens, final step "
          + fin
          + " tokens";
    }
  }
}
