package dev.compactor.log.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.OutputArchive;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.compaction.summary.Checkpoint;
import dev.compactor.core.compaction.summary.ExtractiveSummarizer;
import dev.compactor.core.compaction.summary.SummarizationException;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.policy.Trigger;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.core.view.ViewValidator;
import java.time.Clock;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replays a generated agent conversation message by message through the automatic policy ({@link
 * AutoCompactor} with the built-in {@code trim} and {@code summarize}) at a budget small enough
 * that reminders, trims and summaries all happen, and checks after every message:
 *
 * <ul>
 *   <li>the active view has no {@link ViewValidator} violation (generic, and Anthropic's role rules
 *       too);
 *   <li>the master log only grew: every message ever appended is still there, equal, in order; what
 *       the policy appended is a reminder or a UI-only status/latch message;
 *   <li>every master message is either referenced by the active view (references in master order)
 *       or covered by exactly one synthesized entry, and {@link Conversation#recover} of that entry
 *       gives the exact originals;
 *   <li>pinned messages are referenced verbatim; reasoning blocks in the view are verbatim from the
 *       master log, and a message replaced one for one keeps its reasoning;
 *   <li>views and journal agree: one journal entry per view after the first, each compaction
 *       outcome made exactly one new view whose id, token and message counts its report gives; a
 *       trim brings the context under the budget; a summary fits the budget or says why not; at
 *       most one reminder per view.
 * </ul>
 *
 * Some seeds use a summarizer that fails now and then, to reach the failed-summary latch. Not
 * thread-safe.
 */
final class PolicyReplay {
  static final TokenCounter COUNTER = TokenCounters.estimate();
  static final String MODEL = "test/model";
  private static final ViewValidator GENERIC = new ViewValidator();
  private static final ViewValidator ANTHROPIC = new ViewValidator(ViewValidator.Target.ANTHROPIC);

  /** What happened over one or many replays. */
  enum Event {
    TURNS,
    REMINDED,
    MASKED,
    TRIMMED,
    SUMMARIZED,
    SUMMARY_OVER_BUDGET,
    FAILED,
    LATCHED_TRIM,
    LATCHED_TRIM_REJECTED,
    PENDING
  }

  /** Counts of {@link Event}s. */
  static final class Stats {
    final Map<Event, Long> counts = new EnumMap<>(Event.class);

    void add(Event e) {
      counts.merge(e, 1L, Long::sum);
    }

    long get(Event e) {
      return counts.getOrDefault(e, 0L);
    }

    synchronized void addAll(Stats other) {
      other.counts.forEach((k, v) -> counts.merge(k, v, Long::sum));
    }

    @Override
    public String toString() {
      return counts.toString();
    }
  }

  /**
   * One generated case.
   *
   * @param seed the seed everything is derived from
   * @param messages the conversation to replay
   * @param budget the context budget
   * @param keepRecent keep_recent_tokens of summaries
   * @param maxToolResultTokens trim's truncation limit
   * @param keepHead messages at the start that stay verbatim
   * @param flakySummaries whether the summarizer fails now and then
   */
  record Scenario(
      long seed,
      List<Message> messages,
      long budget,
      long keepRecent,
      int maxToolResultTokens,
      int keepHead,
      boolean flakySummaries) {

    /** The case of a seed: stress options, pinned results and calls, a small budget. */
    static Scenario of(long seed) {
      Random r = new Random(seed * 0x9E3779B97F4A7C15L + 17);
      ConversationGenerator.Options o =
          new ConversationGenerator.Options(
              4 + r.nextInt(50),
              0.3,
              0.4,
              0.1,
              seed % 10 == 0 ? 0.04 : 0.005,
              true,
              r.nextInt(5) == 0,
              1 + r.nextInt(8));
      List<Message> generated = ConversationGenerator.generate(seed, o);
      List<Message> messages = new ArrayList<>(generated.size());
      for (Message m : generated) {
        boolean pin =
            (m.role() == Role.TOOL && r.nextInt(25) == 0)
                || (m.role() == Role.ASSISTANT && r.nextInt(40) == 0);
        messages.add(pin ? m.toBuilder().pinned(true).build() : m);
      }
      long total = COUNTER.countMessages(messages);
      long budget = Math.max(500, (long) (total * (0.08 + 0.4 * r.nextDouble())));
      long keepRecent = (long) (budget * (0.05 + 0.45 * r.nextDouble()));
      int[] maxResult = {100, 300, 2000};
      return new Scenario(
          seed,
          List.copyOf(messages),
          budget,
          keepRecent,
          maxResult[r.nextInt(maxResult.length)],
          r.nextInt(4),
          seed % 6 == 5);
    }

    PolicyContext context(OutputArchive archive) {
      CompressionConfig base =
          CompressionConfig.builder()
              .counter(COUNTER)
              .keepHead(keepHead)
              .maxToolResultTokens(maxToolResultTokens)
              .archive(archive)
              .build();
      return PolicyContext.of(MODEL, budget, base)
          .withKeepRecentTokens(keepRecent)
          .withInstructions(seed % 3 == 0 ? "Keep the invoice numbers." : null);
    }

    @Override
    public String toString() {
      return String.format(
          "seed %d: %d messages, budget %d, keep_recent %d, maxToolResult %d, keepHead %d%s",
          seed,
          messages.size(),
          budget,
          keepRecent,
          maxToolResultTokens,
          keepHead,
          flakySummaries ? ", flaky summaries" : "");
    }
  }

  /**
   * The time the replay sets to the newest message's, so policy messages stay in order; {@link
   * #clock()} reads it in UTC.
   */
  static final class ReplayClock implements InstantSource {
    Instant now = Instant.parse("2026-01-05T09:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    /** A UTC clock that always reads {@link #now}. */
    Clock clock() {
      return withZone(ZoneOffset.UTC);
    }
  }

  /** Fails every third call (deterministically per seed), else the extractive summarizer. */
  static Summarizer flaky(long seed) {
    ExtractiveSummarizer real = new ExtractiveSummarizer();
    AtomicInteger calls = new AtomicInteger((int) (seed % 3));
    return new Summarizer() {
      @Override
      public Checkpoint summarize(List<Message> covered, Checkpoint previous, String instr) {
        if (calls.incrementAndGet() % 3 == 0) {
          throw new SummarizationException("simulated summarizer outage");
        }
        return real.summarize(covered, previous, instr);
      }

      @Override
      public String name() {
        return "flaky-extractive";
      }
    };
  }

  /** A new policy on {@code conversation} for {@code scenario}. */
  static AutoCompactor policy(
      Conversation conversation, Scenario scenario, Clock clock, CompactionListener listener) {
    TrimProvider trim = new TrimProvider();
    SummarizeProvider summarize =
        scenario.flakySummaries()
            ? new SummarizeProvider(flaky(scenario.seed()))
            : new SummarizeProvider();
    return new AutoCompactor(
        conversation,
        new MaskProvider(),
        trim,
        summarize,
        AutoCompactor.savingsOf(trim),
        AutoCompactor.Settings.DEFAULTS,
        clock,
        listener);
  }

  // ---------------------------------------------------------------------------------------------
  // The checker

  private final Conversation conversation;
  private final Scenario scenario;
  private final Stats stats;
  private final List<AppliedCompaction> journal;
  private final List<Message> expectedMaster = new ArrayList<>();

  private static final Pattern KEPT_TAIL = Pattern.compile("kept tail (\\d+) tokens");

  /** Tokens of the final step: the last visible non-tool message and the results after it. */
  private static long finalStepTokens(List<Message> view) {
    int k = view.size() - 1;
    while (k > 0 && (view.get(k).uiOnly() || view.get(k).role() == Role.TOOL)) {
      k--;
    }
    long t = 0;
    for (int i = k; i < view.size(); i++) {
      t += COUNTER.countMessage(view.get(i));
    }
    return t;
  }

  /** Messages between full checks when the policy does nothing. */
  static final int FULL_CHECK_EVERY = 8;

  private int viewsBefore;
  private boolean latchedBefore;

  /**
   * @param conversation where the scenario is replayed (empty, or holding what an earlier replayer
   *     of the same scenario appended)
   * @param journal the reports the policy's listener received, in order (the caller's list)
   */
  PolicyReplay(
      Conversation conversation, Scenario scenario, List<AppliedCompaction> journal, Stats stats) {
    this.conversation = conversation;
    this.scenario = scenario;
    this.journal = journal;
    this.stats = stats;
    expectedMaster.addAll(conversation.master().messages());
    viewsBefore = conversation.views().size();
  }

  /**
   * {@link #step} with the message {@code i} of {@code messages}, a failure rethrown as an {@link
   * AssertionError} that names {@code what} was replayed, the message, the active view, then {@code
   * hint}.
   */
  CompactionOutcome step(
      AutoCompactor auto,
      List<Message> messages,
      int i,
      ReplayClock clock,
      PolicyContext ctx,
      String what,
      String hint) {
    try {
      return step(auto, messages.get(i), clock, ctx, true);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(
          what
              + ", after message "
              + i
              + " ("
              + messages.get(i).id()
              + ") in view "
              + conversation.activeView().id()
              + hint
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * Appends {@code message}, runs the policy with {@code ctx} and checks the invariants: validity,
   * master log growth, views and journal after every message; coverage, pinned messages, reasoning
   * and recovery of every master message whenever the policy did something, on every {@value
   * #FULL_CHECK_EVERY}th message, and when {@code full} is set.
   */
  CompactionOutcome step(
      AutoCompactor auto, Message message, ReplayClock clock, PolicyContext ctx, boolean full) {
    if (message.timestamp() != null) {
      clock.now = message.timestamp();
    }
    conversation.append(message);
    expectedMaster.add(message);
    viewsBefore = conversation.views().size();
    int journalBefore = journal.size();
    latchedBefore = auto.latched();
    CompactionOutcome outcome = auto.afterTurn(ctx);
    stats.add(Event.TURNS);
    boolean deep =
        full
            || !(outcome instanceof CompactionOutcome.NotNeeded)
            || expectedMaster.size() % FULL_CHECK_EVERY == 0;
    check(outcome, journalBefore, deep);
    return outcome;
  }

  private void check(CompactionOutcome outcome, int journalBefore, boolean deep) {
    String active = conversation.activeView().id();
    List<Message> view = conversation.activeMessages();
    List<Message> master = conversation.master().messages();
    long budget = scenario.budget();

    // The master log only grew; what the policy added is a reminder or a UI-only status.
    assertThat(master.size()).as("master log size").isGreaterThanOrEqualTo(expectedMaster.size());
    for (int i = 0; i < expectedMaster.size(); i++) {
      Message e = expectedMaster.get(i);
      Message m = master.get(i);
      if (m != e) {
        assertThat(m).as("master message %d (%s) unchanged", i, e.id()).isEqualTo(e);
      }
    }
    for (int i = expectedMaster.size(); i < master.size(); i++) {
      Message m = master.get(i);
      boolean reminder = m.metadata().extra().containsKey(AutoCompactor.REMINDER_KEY);
      assertThat(reminder || m.uiOnly())
          .as("message %s appended by the policy is a reminder or UI-only: %s", m.id(), m)
          .isTrue();
      expectedMaster.add(m);
    }

    // The active view is valid.
    assertThat(GENERIC.validate(view)).as("violations in view %s", active).isEmpty();
    assertThat(ANTHROPIC.validate(view)).as("Anthropic violations in view %s", active).isEmpty();

    if (deep) {
      checkCoverage(active, master);
    }
    checkViewsAndJournal(outcome, journalBefore, active, view, master, budget);
  }

  /** Every master message is referenced or covered exactly once; pinned, reasoning, recovery. */
  private void checkCoverage(String active, List<Message> master) {
    // Every master message is referenced or covered exactly once; references in master order.
    Map<MessageId, Integer> masterIndex = new HashMap<>();
    for (int i = 0; i < master.size(); i++) {
      masterIndex.put(master.get(i).id(), i);
    }
    Map<MessageId, MessageId> coveredBy = new HashMap<>();
    Set<MessageId> referenced = new HashSet<>();
    int lastRef = -1;
    for (ViewEntry e : conversation.activeView().entries()) {
      if (e instanceof ViewEntry.Ref ref) {
        Integer i = masterIndex.get(ref.id());
        assertThat(i)
            .as("view %s references %s, not in the master log", active, ref.id())
            .isNotNull();
        assertThat(i)
            .as("view %s: reference %s out of master order", active, ref.id())
            .isGreaterThan(lastRef);
        lastRef = i;
        referenced.add(ref.id());
      } else if (e instanceof ViewEntry.Synthesized s) {
        for (MessageId c : s.covers()) {
          MessageId before = coveredBy.put(c, s.message().id());
          assertThat(before)
              .as("master message %s covered by both %s and %s", c, before, s.message().id())
              .isNull();
        }
      }
    }
    for (Message m : master) {
      boolean ref = referenced.contains(m.id());
      boolean cov = coveredBy.containsKey(m.id());
      assertThat(ref || cov)
          .as("master message %s is neither in view %s nor covered by an entry", m.id(), active)
          .isTrue();
      assertThat(ref && cov)
          .as("master message %s is both referenced and covered in view %s", m.id(), active)
          .isFalse();
      if (m.pinned()) {
        assertThat(ref).as("pinned message %s verbatim in view %s", m.id(), active).isTrue();
      }
    }

    // Reasoning blocks are verbatim; a one-for-one replacement keeps them.
    Set<ReasoningBlock> masterReasoning = new HashSet<>();
    for (Message m : master) {
      masterReasoning.addAll(m.reasoning());
    }
    for (ViewEntry e : conversation.activeView().entries()) {
      if (e instanceof ViewEntry.Synthesized s) {
        Message sm = s.message();
        for (ReasoningBlock b : sm.reasoning()) {
          assertThat(masterReasoning).as("reasoning of %s is verbatim", sm.id()).contains(b);
        }
        if (s.covers().size() == 1) {
          Message original = master.get(masterIndex.get(s.covers().get(0)));
          if (original.role() == sm.role() && !original.reasoning().isEmpty()) {
            assertThat(sm.reasoning())
                .as("%s replaces %s and keeps its reasoning", sm.id(), original.id())
                .isEqualTo(original.reasoning());
          }
        }
        {
          List<Message> recovered = conversation.recover(sm.id());
          assertThat(recovered).as("recover(%s)", sm.id()).hasSize(s.covers().size());
          for (int k = 0; k < recovered.size(); k++) {
            Message original = master.get(masterIndex.get(s.covers().get(k)));
            assertThat(recovered.get(k))
                .as("recover(%s) item %d is master message %s", sm.id(), k, original.id())
                .isEqualTo(original);
          }
        }
      }
    }
  }

  private void checkViewsAndJournal(
      CompactionOutcome outcome,
      int journalBefore,
      String active,
      List<Message> view,
      List<Message> master,
      long budget) {
    // Views and journal agree.
    List<View> views = conversation.views();
    assertThat(views.size() - 1)
        .as("one journal entry per compacted view")
        .isEqualTo(journal.size());
    if (outcome instanceof CompactionOutcome.Compacted c) {
      AppliedCompaction r = c.report();
      assertThat(views).as("views after a compaction").hasSize(viewsBefore + 1);
      assertThat(journal).as("journal after a compaction").hasSize(journalBefore + 1);
      assertThat(journal.get(journal.size() - 1)).isEqualTo(r);
      assertThat(r.viewId()).isEqualTo(active);
      assertThat(r.trigger()).isEqualTo(Trigger.AUTO);
      assertThat(r.tokensAfter())
          .as("report tokensAfter = tokens of the new view")
          .isEqualTo(COUNTER.countMessages(view));
      assertThat(r.messagesAfter())
          .as("report messagesAfter = visible messages of the new view")
          .isEqualTo((int) view.stream().filter(m -> !m.uiOnly()).count());
      assertThat(r.tokensAfter()).as("a compaction saves tokens").isLessThan(r.tokensBefore());
      List<ViewEntry> previous = views.get(views.size() - 2).entries();
      List<ViewEntry> next = conversation.activeView().entries();
      assertThat(next.subList(0, next.size() - 1)) // without the UI-only status line
          .as("a compaction changes the view")
          .isNotEqualTo(previous);
      if (r.strategy().equals(MaskProvider.NAME)) {
        stats.add(Event.MASKED);
        assertThat(r.tokensAfter())
            .as("the masking step is kept only when it brings the context under the budget")
            .isLessThan(budget);
      } else if (r.strategy().equals(TrimProvider.NAME)) {
        stats.add(Event.TRIMMED);
        if (latchedBefore) {
          stats.add(Event.LATCHED_TRIM);
        } else {
          assertThat(r.tokensAfter())
              .as("an accepted trim is under the budget (summaries not latched)")
              .isLessThan(budget);
        }
      } else {
        assertThat(r.strategy()).isEqualTo(SummarizeProvider.NAME);
        stats.add(Event.SUMMARIZED);
        if (r.tokensAfter() > budget) {
          stats.add(Event.SUMMARY_OVER_BUDGET);
          String why =
              r.limitations().stream()
                  .filter(l -> l.contains("does not fit the limit"))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          new AssertionError(
                              "a summary over the budget ("
                                  + r.tokensAfter()
                                  + " > "
                                  + budget
                                  + ") must say so: "
                                  + r.limitations()));
          // Only protected content may keep it over: the head, pinned messages and the final
          // step (the tail has shrunk to it; the checkpoint was cut).
          Matcher tail = KEPT_TAIL.matcher(why);
          assertThat(tail.find()).as("kept tail in %s", why).isTrue();
          assertThat(Long.parseLong(tail.group(1)))
              .as("a summary over the budget keeps no more than the final step: %s", why)
              .isEqualTo(finalStepTokens(view));
        }
      }
    } else {
      assertThat(views).as("views after %s", outcome).hasSize(viewsBefore);
      assertThat(journal).as("journal after %s", outcome).hasSize(journalBefore);
      if (outcome instanceof CompactionOutcome.Reminded rem) {
        stats.add(Event.REMINDED);
        assertThat(rem.reminder().metadata().extra())
            .containsEntry(AutoCompactor.REMINDER_KEY, active);
        assertThat(rem.reminder().uiOnly()).isFalse();
        assertThat(view).contains(rem.reminder());
      } else if (outcome instanceof CompactionOutcome.Failed f) {
        stats.add(f.reason().contains("paused") ? Event.LATCHED_TRIM_REJECTED : Event.FAILED);
      } else if (outcome instanceof CompactionOutcome.NotNeeded n
          && n.reason().contains("pending")) {
        stats.add(Event.PENDING);
      }
    }
    long reminders =
        master.stream()
            .filter(m -> active.equals(m.metadata().extra().get(AutoCompactor.REMINDER_KEY)))
            .count();
    assertThat(reminders).as("reminders for view %s", active).isLessThanOrEqualTo(1);
  }

  /** The master log as the replay expects it (every message appended so far, in order). */
  List<Message> expectedMaster() {
    return List.copyOf(expectedMaster);
  }
}
