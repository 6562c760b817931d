package dev.compactor.replay;

import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.replay.cost.CacheModel;
import dev.compactor.replay.cost.Price;
import dev.compactor.replay.internal.Facts;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Replays one recorded conversation under one strategy, as an agent loop: before each recorded
 * assistant message there is a model call whose input is the strategy's view at that point; after
 * each turn (the assistant message, then the messages that answer it) the strategy runs as it would
 * live; the recorded messages are appended as recorded, whatever the view.
 *
 * <p>At every call it measures the view: tokens (with the options' counter), the prefix unchanged
 * since the previous call (prompt caching), whether input plus reserved output exceeds the window,
 * whether the view passes {@link ViewValidator}, and which of the facts the recorded response needs
 * the view still contains. See {@link Metrics} for the definitions.
 *
 * <p>Thread-safe: each call to {@link #replay} has its own state.
 */
public final class Replayer {
  /** Failed compactions kept per run for diagnosis. */
  private static final int MAX_FAILURES_KEPT = 5;

  private final TokenCounter counter;
  private final ViewValidator validator = new ViewValidator();

  /** A replayer that counts with {@code counter}. */
  public Replayer(TokenCounter counter) {
    this.counter = Objects.requireNonNull(counter, "counter");
  }

  /**
   * Replays {@code conversation} under {@code strategy}.
   *
   * @throws RuntimeException whatever the strategy throws (a strategy should report failures to its
   *     events instead)
   */
  public StrategyRun replay(RecordedConversation conversation, ReplayStrategy strategy) {
    TokenCounter counter = new RunCounter(this.counter);
    Tally t = new Tally();
    ReplayClock clock = new ReplayClock();
    ReplaySession session = strategy.start(conversation.setup(counter, clock, t));
    Price price = conversation.price();
    Map<Message, Set<String>> synthesizedFacts = new IdentityHashMap<>();
    List<Message> messages = conversation.messages();
    long[] series = new long[conversation.callCount()];
    List<Message> previous = List.of();
    long overWindowAt = conversation.window() - conversation.maxOutput();
    boolean recallTool = strategy.recallTool();
    Map<String, Message> byId = new java.util.HashMap<>();
    if (recallTool) {
      for (Message m : messages) {
        byId.putIfAbsent(m.id().value(), m);
      }
    }
    boolean turnOpen = false;
    int call = 0;
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      boolean isCall = call < series.length && conversation.callIndex(call) == i;
      if (isCall) {
        if (turnOpen) {
          t.afterTurn(session);
          turnOpen = false;
        }
        // A snapshot: a session may hand out a live list that the next append changes.
        List<Message> view = List.copyOf(session.view());
        long input = counter.countMessages(view);
        long cached = cachedPrefix(counter, previous, view);
        series[call] = input;
        t.calls++;
        t.inputTokens += input;
        t.peakTokens = Math.max(t.peakTokens, input);
        if (input > overWindowAt) {
          t.overWindowCalls++;
        }
        t.cachedTokens += cached;
        t.promptOpenAi += CacheModel.OPENAI.inputCost(price, input, cached);
        t.promptAnthropic += CacheModel.ANTHROPIC.inputCost(price, input, cached);
        long out = counter.countMessage(m);
        t.outputTokens += out;
        t.outputCost += price.output(out);
        if (!validator.isValid(view)) {
          t.invalidViews++;
        }
        List<String> need = conversation.needed(call);
        t.neededFacts += need.size();
        Recall r = recalled(need, view, conversation, synthesizedFacts, recallTool ? byId : null);
        t.recalledFacts += r.found;
        if (!r.outputs.isEmpty()) {
          // One more round trip: the model calls the tool for every output it needs (one parallel
          // call), and the next request is this view (cached: just sent) plus that call and the
          // recalled outputs (written). The recorded response then follows as recorded.
          long extra = RECALL_CALL_TOKENS * r.outputs.size();
          for (Message o : r.outputs) {
            extra += counter.countMessage(o);
          }
          t.recallCalls++;
          t.recallTokens += extra;
          t.peakTokens = Math.max(t.peakTokens, input + extra);
          if (input + extra > overWindowAt) {
            t.overWindowCalls++;
          }
          t.recoveredFacts += r.recovered;
          t.inputTokens += input + extra;
          t.cachedTokens += input;
          t.promptOpenAi += CacheModel.OPENAI.inputCost(price, input + extra, input);
          t.promptAnthropic += CacheModel.ANTHROPIC.inputCost(price, input + extra, input);
          t.outputTokens += RECALL_CALL_TOKENS * r.outputs.size();
          t.outputCost += price.output(RECALL_CALL_TOKENS * r.outputs.size());
        }
        previous = view;
        call++;
      }
      clock.advanceTo(m.timestamp());
      session.append(m);
      turnOpen = true;
      if (isCall) {
        t.afterTurn(session);
        turnOpen = false;
      }
    }
    Metrics metrics =
        new Metrics(
            1,
            t.calls,
            t.inputTokens,
            t.peakTokens,
            t.overWindowCalls,
            t.compactions,
            t.reminders,
            t.failures,
            t.summaryCalls,
            t.summaryInput,
            t.summaryOutput,
            t.cachedTokens,
            t.outputTokens,
            t.promptOpenAi,
            t.promptAnthropic,
            t.outputCost,
            price.input(t.summaryInput) + price.output(t.summaryOutput),
            t.invalidViews,
            t.neededFacts,
            t.recalledFacts,
            t.nanos,
            t.recallCalls,
            t.recallTokens,
            t.recoveredFacts,
            t.plans.size(),
            t.predictedSaving(),
            t.realisedSaving());
    return new StrategyRun(strategy.name(), conversation.name(), metrics, series, t.failureNotes);
  }

  /** Tokens of the longest run of leading messages equal to the previous call's. */
  private static long cachedPrefix(
      TokenCounter counter, List<Message> previous, List<Message> view) {
    int n = Math.min(previous.size(), view.size());
    long tokens = 0;
    for (int i = 0; i < n; i++) {
      Message a = previous.get(i);
      Message b = view.get(i);
      if (a != b && !a.equals(b)) {
        break;
      }
      tokens += counter.countMessage(b);
    }
    return tokens;
  }

  /** Tokens of one recall tool call the model writes (name, id argument, framing). */
  static final int RECALL_CALL_TOKENS = 20;

  /** Facts found in the view, and the masked outputs the recall tool would bring back. */
  private record Recall(int found, int recovered, List<Message> outputs) {}

  private static final Recall NONE = new Recall(0, 0, List.of());

  private static Recall recalled(
      List<String> need,
      List<Message> view,
      RecordedConversation conversation,
      Map<Message, Set<String>> synthesized,
      Map<String, Message> byId) {
    if (need.isEmpty()) {
      return NONE;
    }
    List<Set<String>> sets = new ArrayList<>(view.size());
    for (Message m : view) {
      Set<String> f = conversation.recordedFacts(m);
      if (f == null) {
        f = synthesized.computeIfAbsent(m, Facts::of);
      }
      if (!f.isEmpty()) {
        sets.add(f);
      }
    }
    int found = 0;
    List<String> missing = new ArrayList<>();
    for (String fact : need) {
      boolean hit = false;
      for (Set<String> f : sets) {
        if (f.contains(fact)) {
          hit = true;
          break;
        }
      }
      if (hit) {
        found++;
      } else {
        missing.add(fact);
      }
    }
    if (byId == null || missing.isEmpty()) {
      return new Recall(found, 0, List.of());
    }
    // The recall tool: a fact that only the original of a masked output in the view held comes
    // back when the model recalls that output by the id its placeholder names.
    List<Message> outputs = new ArrayList<>();
    int recovered = 0;
    for (String fact : missing) {
      for (Message m : view) {
        String id = m.id().value();
        if (!id.endsWith(MASKED_SUFFIX)) {
          continue;
        }
        Message source = byId.get(id.substring(0, id.length() - MASKED_SUFFIX.length()));
        Set<String> f = source == null ? null : conversation.recordedFacts(source);
        if (f != null && f.contains(fact)) {
          recovered++;
          if (!outputs.contains(source)) {
            outputs.add(source);
          }
          break;
        }
      }
    }
    return new Recall(found + recovered, recovered, outputs);
  }

  /** The id suffix of a masked tool output: {@code <source id>~masked}. */
  private static final String MASKED_SUFFIX = "~masked";

  /** The running figures of one replay; also the strategy's event sink. */
  private static final class Tally implements ReplayEvents {
    long calls;
    long inputTokens;
    long peakTokens;
    long overWindowCalls;
    long compactions;
    long reminders;
    long failures;
    long summaryCalls;
    long summaryInput;
    long summaryOutput;
    long cachedTokens;
    long outputTokens;
    double promptOpenAi;
    double promptAnthropic;
    double outputCost;
    long invalidViews;
    long neededFacts;
    long recalledFacts;
    long nanos;
    long recallCalls;
    long recallTokens;
    long recoveredFacts;
    final List<String> failureNotes = new ArrayList<>();

    /** The cost plans of the compactions, with the number of calls made before each. */
    final List<PlannedAt> plans = new ArrayList<>();

    record PlannedAt(
        dev.compactor.core.policy.CostPlanner planner,
        dev.compactor.core.policy.CostPlanner.Plan plan,
        long callsBefore) {}

    @Override
    public void planned(
        dev.compactor.core.policy.CostPlanner planner,
        dev.compactor.core.policy.CostPlanner.Plan plan) {
      plans.add(new PlannedAt(planner, plan, calls));
    }

    double predictedSaving() {
      double sum = 0;
      for (PlannedAt p : plans) {
        sum += p.plan().predicted();
      }
      return sum;
    }

    /** Each plan's net saving with the calls actually made after it, at the end of the replay. */
    double realisedSaving() {
      double sum = 0;
      for (PlannedAt p : plans) {
        sum += p.plan().realised(p.planner(), calls - p.callsBefore());
      }
      return sum;
    }

    void afterTurn(ReplaySession session) {
      long start = System.nanoTime();
      session.afterTurn();
      nanos += System.nanoTime() - start;
    }

    @Override
    public void compacted(String strategy, long tokensBefore, long tokensAfter) {
      compactions++;
    }

    @Override
    public void reminded() {
      reminders++;
    }

    @Override
    public void summaryCall(long inputTokens, long outputTokens) {
      summaryCalls++;
      summaryInput += inputTokens;
      summaryOutput += outputTokens;
    }

    @Override
    public void failed(String strategy, String reason) {
      failures++;
      if (failureNotes.size() < MAX_FAILURES_KEPT) {
        failureNotes.add(strategy + ": " + reason);
      }
    }
  }
}
