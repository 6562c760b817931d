package dev.compactor.core.compaction.summary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ViewBuilder;
import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.compaction.text.Identifiers;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SummarizeProviderTest {
  private static final TokenCounter COUNTER = TokenCounters.estimate();

  /** Records what the summarizer was given. */
  static final class Recording implements Summarizer {
    final Summarizer delegate;
    final List<List<Message>> inputs = new ArrayList<>();
    final List<Checkpoint> previous = new ArrayList<>();
    final List<String> instructions = new ArrayList<>();

    Recording(Summarizer delegate) {
      this.delegate = delegate;
    }

    @Override
    public Checkpoint summarize(List<Message> covered, Checkpoint prev, String instr) {
      inputs.add(covered);
      previous.add(prev);
      instructions.add(instr);
      return delegate.summarize(covered, prev, instr);
    }

    @Override
    public String name() {
      return "recording";
    }
  }

  private static CompressionConfig.Builder config(Integer limit, int keepRecent) {
    return CompressionConfig.builder()
        .limit(limit)
        .counter(COUNTER)
        .extraConfig(Map.of(SummarizeProvider.KEEP_RECENT_TOKENS, keepRecent));
  }

  /** The summary of {@code m} under {@code limit}, keeping {@code keepRecent} tokens verbatim. */
  private static CompactionResult summarize(List<Message> m, Integer limit, int keepRecent) {
    return new SummarizeProvider().compress(m, config(limit, keepRecent).build());
  }

  /** {@code view} keeps the provider-independent invariants of a view. */
  private static void assertValid(List<Message> view) {
    assertThat(new ViewValidator().validate(view)).isEmpty();
  }

  private static long tokens(List<Message> m) {
    return COUNTER.countMessages(m);
  }

  /** A system prompt, then steps of ~300-token tool outputs, a user request every 5 steps. */
  private static List<Message> agentLog(int steps) {
    Conv c = new Conv().system("You are a coding agent.").user("Fix the rounding bug.");
    for (int i = 0; i < steps; i++) {
      if (i > 0 && i % 5 == 0) {
        c.user("Continue with step " + i + ".");
      }
      c.tool("read_file", "{\"path\":\"src/F" + i + ".java\"}", Conv.lines("f" + i + "-", 30));
    }
    return c.assistant("All steps done.").build();
  }

  private static Message last(List<Message> m) {
    return m.get(m.size() - 1);
  }

  private static Message checkpointOf(CompactionResult r) {
    return r.messages().stream().filter(SummarizeProvider::isCheckpoint).findFirst().orElseThrow();
  }

  /** The checkpoint's text from its "## Identifiers" heading on. */
  private static String identifiersSection(CompactionResult r) {
    String content = checkpointOf(r).content();
    return content.substring(content.indexOf("## Identifiers"));
  }

  /** A checkpoint with only an objective and a current state. */
  private static Checkpoint checkpoint(String objective, String state) {
    return new Checkpoint(objective, List.of(), state, List.of(), List.of(), List.of());
  }

  /** 40 shell outputs of 30 {@code def helper_I_J(x):} lines each, then "Done.". */
  private static List<Message> helperModules() {
    Conv c = new Conv().system("sys").user("Rename the helpers.");
    for (int i = 0; i < 40; i++) {
      StringBuilder out = new StringBuilder();
      for (int j = 0; j < 30; j++) {
        out.append("def helper_").append(i).append('_').append(j).append("(x):\n");
      }
      c.tool("shell", "{\"command\":\"cat mod" + i + ".py\"}", out.toString());
    }
    return c.assistant("Done.").build();
  }

  @Test
  void view_isHeadThenCheckpointThenRecentTail_coveringEverySummarizedMessage() {
    List<Message> m = agentLog(30);
    CompactionResult r = summarize(m, null, 2000);

    List<Message> out = r.messages();
    assertThat(out.get(0)).isEqualTo(m.get(0));
    Message cp = out.get(1);
    assertThat(cp.role()).isEqualTo(Role.USER);
    assertThat(SummarizeProvider.isCheckpoint(cp)).isTrue();
    assertThat(cp.content()).startsWith("[Checkpoint: ").contains("\n\n## Objective\n");
    List<Message> tail = out.subList(2, out.size());
    assertThat(m).endsWith(tail.toArray(new Message[0]));
    assertThat(tokens(tail) - COUNTER.overhead().replyPriming()).isLessThanOrEqualTo(2000);
    List<MessageId> summarized =
        m.subList(1, m.size() - tail.size()).stream().map(Message::id).toList();
    assertThat(r.provenance()).containsOnlyKeys(cp.id());
    assertThat(r.provenance().get(cp.id())).isEqualTo(summarized);
    assertThat(new ViewValidator(ViewValidator.Target.ANTHROPIC).validate(out)).isEmpty();
    assertThat(new ViewValidator(ViewValidator.Target.OPENAI).validate(out)).isEmpty();
    assertThat(cp.timestamp()).isEqualTo(m.get(1).timestamp());
    assertThat(r.limitations()).first().asString().contains("summarized into a checkpoint");
  }

  @Test
  void trailingUiOnlyStatusLines_areNotTheFinalStep_theLastVisibleStepIsKept() {
    List<Message> m = new ArrayList<>(agentLog(6));
    Message answer = last(m);
    m.add(Message.builder(Role.SYSTEM).id("status-1").content("/model").uiOnly(true).build());
    m.add(Message.builder(Role.SYSTEM).id("status-2").content("kept").uiOnly(true).build());
    CompactionResult r = summarize(m, null, 0);
    assertThat(r.messages()).contains(answer);
    assertThat(r.messages()).endsWith(answer, m.get(m.size() - 2), m.get(m.size() - 1));
    assertThat(r.provenance().get(checkpointOf(r).id())).doesNotContain(answer.id());
  }

  @Test
  void theCheckpointIdDependsOnTheCoveredMessages_notOnTheRandomIdsOfUiOnlyNotices() {
    List<Message> base = agentLog(30);
    List<String> ids = new ArrayList<>();
    for (int run = 0; run < 2; run++) {
      List<Message> m = new ArrayList<>(base);
      // a compaction notice in the summarized span, with a fresh random id each time
      m.add(3, Message.builder(Role.SYSTEM).content("Compacted with trim").uiOnly(true).build());
      ids.add(checkpointOf(summarize(m, null, 2000)).id().value());
    }
    assertThat(ids.get(0)).isEqualTo(ids.get(1));
    List<Message> other = new ArrayList<>(base);
    other.set(
        2,
        Message.builder(other.get(2).role()).id("renamed").content(other.get(2).content()).build());
    assertThat(checkpointOf(summarize(other, null, 2000)).id().value())
        .as("a covered message of another id")
        .isNotEqualTo(ids.get(0));
  }

  @Test
  void limitBelowTheCheckpointHeader_usesAShorterHeader_andStillFits() {
    // ids long enough that the usual header ("... (first id to last id) ...") alone is over it
    List<Message> m = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      m.add(
          Message.builder(i % 2 == 0 ? Role.USER : Role.ASSISTANT)
              .id("7d48cbd2-6615-4dd8-87f6-38f12b8167d" + i)
              .content("step " + i + ": " + "the server does not start; ".repeat(8))
              .build());
    }
    m.add(Message.builder(Role.USER).id("last").content("ok?").build());
    long limit = 60;
    CompactionResult r = summarize(m, (int) limit, 0);
    assertThat(tokens(r.messages())).isLessThanOrEqualTo(limit);
    assertThat(checkpointOf(r).content()).contains(SummarizeProvider.CUT_MARKER);
    assertThat(r.limitations()).noneMatch(l -> l.contains("does not fit"));
    assertThat(last(r.messages())).isEqualTo(last(m));
  }

  @Test
  void tail_neverStartsWithAResultWhoseCallWasCut_andKeepsParallelResultsTogether() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("go")
            .tool("read_file", "{}", Conv.lines("a", 60))
            .parallel(Conv.lines("p", 60), Conv.lines("q", 60), Conv.lines("r", 60))
            .assistant("done")
            .build();
    // the three parallel results are ~600 tokens each: 1,200 tokens cut through them
    CompactionResult small = summarize(m, null, 1200);
    List<Message> tail = small.messages().subList(2, small.messages().size());
    assertThat(tail).containsExactly(m.get(m.size() - 1)); // cut forward past the group

    CompactionResult wide = summarize(m, null, 2000);
    List<Message> tail2 = wide.messages().subList(2, wide.messages().size());
    assertThat(tail2.get(0).role()).isEqualTo(Role.ASSISTANT);
    assertThat(tail2.get(0).toolCalls()).hasSize(3);
    assertThat(tail2).hasSize(5);
    assertValid(small.messages());
    assertValid(wide.messages());
  }

  @Test
  void theFinalStep_isAlwaysKept_evenAPendingCallWithItsResultsOverTheBudget() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("go")
            .tool("read_file", "{}", Conv.lines("a", 60))
            .user("more")
            .parallel(Conv.lines("p", 200), Conv.lines("q", 200))
            .build();
    List<Message> pending = m.subList(0, m.size() - 1); // one parallel result still missing
    CompactionResult r = summarize(pending, null, 10);
    assertThat(r.messages()).endsWith(pending.get(pending.size() - 2), last(pending));
    assertValid(r.messages());
  }

  @Test
  void withReasoning_theTailStartsAtAUserMessageOrAThinkingStep_notInsideAToolLoop() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("go")
            .tool("read_file", "{}", Conv.lines("a", 60))
            .tool("read_file", "{}", Conv.lines("b", 60))
            .user("now the loop")
            .tool("read_file", "{}", Conv.lines("c", 60))
            .tool("read_file", "{}", Conv.lines("d", 60))
            .tool("read_file", "{}", Conv.lines("e", 60))
            .assistant("done")
            .build();
    List<Message> withThinking = new ArrayList<>(m);
    // the loop after "now the loop" opens with a thinking step (index 7)
    withThinking.set(
        7,
        m.get(7).toBuilder()
            .reasoning(
                List.of(new dev.compactor.core.message.ReasoningBlock("thinking", "plan", "s")))
            .build());
    // budgets whose natural cut is a step inside a loop: at b (index 4) and at d (index 9)
    int fromB = (int) (tokens(m.subList(4, m.size())) - COUNTER.overhead().replyPriming());
    int fromD = (int) (tokens(m.subList(9, m.size())) - COUNTER.overhead().replyPriming());

    CompactionResult plain = summarize(m, null, fromD);
    assertThat(plain.messages().get(2)).isEqualTo(m.get(9)); // no reasoning: any step boundary

    CompactionResult toUser = summarize(withThinking, null, fromB);
    assertThat(toUser.messages().get(2)).isEqualTo(withThinking.get(6)); // the user message

    CompactionResult toEnd = summarize(withThinking, null, fromD);
    assertThat(toEnd.messages().subList(2, toEnd.messages().size()))
        .containsExactly(withThinking.get(13)); // no safe start inside the loop: the final step
    assertThat(new ViewValidator(ViewValidator.Target.ANTHROPIC).validate(toEnd.messages()))
        .isEmpty();
  }

  @Test
  void pinnedMessagesOfTheSummarizedSpan_stayVerbatim_withTheirToolCall() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("go")
            .tool("read_file", "{}", Conv.lines("a", 60))
            .tool("shell", "{}", "IMPORTANT output", true)
            .pinnedUser("Remember: the tax rate is 0.2")
            .tool("read_file", "{}", Conv.lines("b", 60))
            .assistant("done")
            .build();
    CompactionResult r = summarize(m, null, 50);
    List<Message> out = r.messages();
    assertThat(out)
        .containsExactly(m.get(0), checkpointOf(r), m.get(4), m.get(5), m.get(6), m.get(9));
    assertThat(r.provenance().get(checkpointOf(r).id()))
        .containsExactly(m.get(1).id(), m.get(2).id(), m.get(3).id(), m.get(7).id(), m.get(8).id());
    assertThat(checkpointOf(r).content()).contains("Pinned messages of that span follow verbatim");
    assertThat(new ViewValidator(ViewValidator.Target.ANTHROPIC).validate(out)).isEmpty();
  }

  @Test
  void keepHead_widensTheHead_withoutSplittingAStep() {
    List<Message> m = agentLog(10);
    // keepHead 3 ends inside the first step (assistant call at 2, result at 3)
    CompactionResult r = new SummarizeProvider().compress(m, config(null, 500).keepHead(3).build());
    assertThat(r.messages().subList(0, 4)).isEqualTo(m.subList(0, 4));
    assertThat(SummarizeProvider.isCheckpoint(r.messages().get(4))).isTrue();
  }

  @Test
  void aPreviousCheckpoint_isCarriedForward_notSummarizedAsText_andEverythingStaysRecoverable() {
    List<Message> first = agentLog(20);
    InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog(first));
    Recording rec = new Recording(new ExtractiveSummarizer());
    SummarizeProvider p = new SummarizeProvider(rec);
    CompressionConfig c = config(null, 1000).build();

    CompactionResult r1 = p.compress(conv.activeMessages(), c);
    View v1 = ViewBuilder.build(conv.activeView(), conv.activeMessages(), r1, conv.nextViewId());
    conv.switchTo(v1);
    Message cp1 = checkpointOf(r1);
    for (Message extra : agentLog(45).subList(first.size(), agentLog(45).size())) {
      conv.append(extra.withId(MessageId.of("x-" + extra.id())));
    }

    CompactionResult r2 = p.compress(conv.activeMessages(), c);
    assertThat(rec.previous.get(1)).isEqualTo(Checkpoint.parse(cp1.content()));
    assertThat(rec.inputs.get(1)).doesNotContain(cp1).noneMatch(SummarizeProvider::isCheckpoint);
    Message cp2 = checkpointOf(r2);
    assertThat(r2.provenance().get(cp2.id())).contains(cp1.id());
    assertThat(r2.limitations()).first().asString().contains("carrying the previous checkpoint");

    View v2 = ViewBuilder.build(conv.activeView(), conv.activeMessages(), r2, conv.nextViewId());
    conv.switchTo(v2);
    List<Message> recovered = conv.recover(cp2.id());
    assertThat(recovered).containsAll(first.subList(1, 20)).doesNotContain(cp1);
    assertValid(conv.activeMessages());
  }

  @Test
  void underALimit_theTailShrinksFirst_andTheDroppedStepsAreSummarized() {
    List<Message> m = agentLog(40);
    CompactionResult loose = summarize(m, null, 20_000);
    long withoutLimit = tokens(loose.messages());
    int limit = (int) (withoutLimit / 2);
    Recording rec = new Recording(new ExtractiveSummarizer());

    CompactionResult r = new SummarizeProvider(rec).compress(m, config(limit, 20_000).build());
    assertThat(tokens(r.messages())).isLessThanOrEqualTo(limit);
    assertThat(r.limitations()).anySatisfy(l -> assertThat(l).startsWith("kept tail shrunk"));
    assertThat(checkpointOf(r).content()).doesNotContain(SummarizeProvider.CUT_MARKER);
    assertValid(r.messages());
  }

  @Test
  void aCheckpointLargerThanExpected_shrinksTheTailAgain_summarizingTheDroppedStepsOnTop() {
    // ~3,000-token checkpoints: more than the 2,000 tokens set aside when the tail was chosen
    Recording rec =
        new Recording(
            (covered, previous, instr) ->
                checkpoint("Goal " + covered.size(), "State. ".repeat(1280)));
    List<Message> m = agentLog(60);
    int limit = 8000;

    CompactionResult r = new SummarizeProvider(rec).compress(m, config(limit, 20_000).build());
    assertThat(rec.inputs).hasSize(2);
    assertThat(rec.previous.get(0)).isNull();
    assertThat(rec.previous.get(1).objective()).isEqualTo("Goal " + rec.inputs.get(0).size());
    assertThat(tokens(r.messages())).isLessThanOrEqualTo(limit);
    assertThat(checkpointOf(r).content()).doesNotContain(SummarizeProvider.CUT_MARKER);
    List<MessageId> covered = r.provenance().get(checkpointOf(r).id());
    assertThat(covered).hasSize(rec.inputs.get(0).size() + rec.inputs.get(1).size());
    assertThat(r.limitations()).anySatisfy(l -> assertThat(l).startsWith("kept tail shrunk"));
    assertValid(r.messages());
  }

  @Test
  void whenTheTailCannotShrinkMore_theCheckpointIsCutWithAMarker_andTheViewFits() {
    List<Message> m = agentLog(40);
    Message last = last(m);
    long minimal = COUNTER.countMessage(m.get(0)) + COUNTER.countMessage(last) + 3;
    int limit = (int) minimal + 120;

    CompactionResult r = summarize(m, limit, 20_000);
    assertThat(r.messages()).containsExactly(m.get(0), checkpointOf(r), last);
    assertThat(tokens(r.messages())).isLessThanOrEqualTo(limit);
    assertThat(checkpointOf(r).content()).contains(SummarizeProvider.CUT_MARKER);
    assertThat(r.limitations())
        .anySatisfy(l -> assertThat(l).startsWith("checkpoint cut to fit the budget"));
  }

  @Test
  void parity10_hundredShortUserMessages_limit100_theSummarizedViewFits() {
    Conv conv = new Conv();
    IntStream.range(0, 100).forEach(i -> conv.user("Short message " + i));
    List<Message> m = conv.build();
    CompressionConfig c = config(100, 20_000).build();
    SummarizeProvider p = new SummarizeProvider();

    assertThat(p.shouldCompress(m, c)).isTrue();
    CompactionResult r = p.compress(m, c);
    assertThat(tokens(r.messages())).isLessThanOrEqualTo(100);
    assertThat(last(r.messages())).isEqualTo(last(m));
    assertThat(new ViewValidator(ViewValidator.Target.ANTHROPIC).validate(r.messages())).isEmpty();
  }

  @Test
  void parity30_aCutCheckpointKeepsItsBeginning_importantSavedWorkWithin200Tokens() {
    Summarizer verbose =
        (covered, previous, instr) ->
            checkpoint(
                "IMPORTANT SAVED WORK: the migration script is in db/migrate.sql",
                "Details. ".repeat(2000));
    List<Message> m = agentLog(20);
    long fixed = COUNTER.countMessage(m.get(0)) + COUNTER.countMessage(last(m)) + 3;
    CompactionResult r =
        new SummarizeProvider(verbose).compress(m, config((int) fixed + 200, 0).build());
    Message cp = checkpointOf(r);
    assertThat(COUNTER.countMessage(cp)).isLessThanOrEqualTo(200);
    assertThat(cp.content())
        .contains("IMPORTANT SAVED WORK: the migration script is in db/migrate.sql")
        .contains(SummarizeProvider.CUT_MARKER);
  }

  @Test
  void aCutCheckpoint_keepsHeadAndTailOfEachSection_aLongObjectiveIsNotDroppedWhole() {
    String objective =
        "OBJECTIVE-START migrate the billing service to the new ledger. "
            + "Keep every invoice total exact to the cent. ".repeat(300)
            + "OBJECTIVE-END report back in the ticket BILL-42.";
    Summarizer verbose =
        (covered, previous, instr) ->
            new Checkpoint(
                objective,
                List.of("DECISION use BigDecimal"),
                "STATE-START " + "Reading the ledger adapter. ".repeat(300) + "STATE-END",
                List.of("OPEN write the migration test"),
                List.of(),
                List.of());
    List<Message> m = agentLog(20);
    long fixed = COUNTER.countMessage(m.get(0)) + COUNTER.countMessage(last(m)) + 3;
    CompactionResult r =
        new SummarizeProvider(verbose).compress(m, config((int) fixed + 400, 0).build());
    Message cp = checkpointOf(r);
    assertThat(COUNTER.countMessage(cp)).isLessThanOrEqualTo(400);
    assertThat(cp.content())
        .contains("OBJECTIVE-START migrate the billing service")
        .contains("OBJECTIVE-END report back in the ticket BILL-42.")
        .contains("STATE-START")
        .contains("STATE-END")
        .contains("DECISION use BigDecimal")
        .contains("OPEN write the migration test")
        .contains("## Objective", "## Key Decisions", "## Current State", "## Open Items")
        .contains(SummarizeProvider.CUT_MARKER);
    Checkpoint parsed = Checkpoint.parse(cp.content().substring(cp.content().indexOf("## ")));
    assertThat(parsed.objective()).startsWith("OBJECTIVE-START").endsWith("BILL-42.");
    assertThat(tokens(r.messages())).isLessThanOrEqualTo(fixed + 400);
  }

  @Test
  void verification_addsTheIdentifiersTheTailReliesOn_andSaysSo() {
    Summarizer terse =
        (covered, previous, instr) ->
            checkpoint("Fix the crash in src/Foo.java.", "Working on it.");
    List<Message> m =
        new Conv()
            .system("sys")
            .user("Fix the NullPointerException in src/Foo.java, see issue #4521 and BILL-77.")
            .tool("shell", "{\"command\":\"mvn test\"}", "java.lang.NullPointerException at Foo:12")
            .assistant("Found it.")
            .user("Go on with #4521; the NullPointerException also shows in Bar.java.")
            .build();
    CompactionResult r = new SummarizeProvider(terse).compress(m, config(null, 30).build());
    Checkpoint cp = Checkpoint.parse(checkpointOf(r).content());
    // first those the tail relies on, then the index of the span's other identifiers
    assertThat(cp.identifiers()).startsWith("NullPointerException", "#4521");
    assertThat(checkpointOf(r).content())
        .contains("## Identifiers\n- `NullPointerException`, `#4521`");
    assertThat(r.limitations())
        .anySatisfy(
            l ->
                assertThat(l)
                    .isEqualTo(
                        "checkpoint verification added 2 identifiers the summary had left out:"
                            + " NullPointerException, #4521"));
  }

  @Test
  void theIndex_listsTheSpansNames_thatNeitherTheCheckpointNorTheKeptMessagesName() {
    Summarizer terse =
        (covered, previous, instr) -> checkpoint("Fix the parser.", "Working on it.");
    List<Message> m =
        new Conv()
            .system("sys")
            .user("Fix the parser.")
            .tool(
                "shell",
                "{\"command\":\"grep -n \\\"def parse_header\\\" src/parser.py\"}",
                "41: def parse_header(self, raw):\n42:     return HeaderBlock(raw)")
            .assistant("parse_header builds a HeaderBlock; check_tuples in lint.py is unrelated.")
            .user("Now run the tests.")
            .assistant("Running them; HeaderBlock first.")
            .build();
    CompactionResult r = new SummarizeProvider(terse).compress(m, config(null, 10).build());
    Checkpoint cp = Checkpoint.parse(checkpointOf(r).content());
    assertThat(cp.identifiers())
        .contains("parse_header", "src/parser.py", "check_tuples", "lint.py", "def parse_header")
        // named by the kept tail, so not repeated; said by the checkpoint text, so not repeated
        .doesNotContain("HeaderBlock", "Fix the parser.");
    // the assistant's own names outrank what only a tool output or a command said
    assertThat(cp.identifiers().indexOf("check_tuples"))
        .isLessThan(cp.identifiers().indexOf("def parse_header"));
    assertThat(r.limitations())
        .anySatisfy(l -> assertThat(l).contains("more identifiers of the summarized span"));
    assertValid(r.messages());
  }

  @Test
  void theIndex_staysWithinItsShareOfTheLimit_andCarriesNamesForward() {
    List<Message> m = helperModules();
    int limit = 20_000;
    CompactionResult r = summarize(m, limit, 2_000);
    Checkpoint cp = Checkpoint.parse(checkpointOf(r).content());
    // the newest outputs are in the kept tail; the index names those of the summarized span
    String kept = r.messages().get(r.messages().size() - 2).content();
    assertThat(cp.identifiers()).isNotEmpty().noneMatch(kept::contains);
    assertThat(cp.identifiers()).anyMatch(id -> id.startsWith("helper_"));
    String carried = cp.identifiers().get(cp.identifiers().size() / 2);
    assertThat(COUNTER.countText(identifiersSection(r)))
        .isLessThanOrEqualTo((int) (Identifiers.INDEX_LIMIT_SHARE * limit));
    assertThat(tokens(r.messages())).isLessThanOrEqualTo(limit);

    // a second summary ranks the earlier index like any other text of its span
    List<Message> next = new ArrayList<>(r.messages());
    for (int i = 0; i < 12; i++) {
      next.add(Message.builder(Role.USER).id("more-" + i).content(Conv.lines("m" + i, 60)).build());
      next.add(Message.builder(Role.ASSISTANT).id("ans-" + i).content("Noted.").build());
    }
    CompactionResult r2 = summarize(next, limit, 2_000);
    assertThat(Checkpoint.parse(checkpointOf(r2).content()).identifiers()).contains("helper_39_29");
  }

  @Test
  void indexShare_boundsTheIndexToItsShare_zeroListsNone_andABadValueIsNamed() {
    List<Message> m = helperModules();
    int limit = 20_000;
    CompactionResult full = summarize(m, limit, 2_000);
    CompactionResult small =
        new SummarizeProvider().compress(m, withShare(config(limit, 2_000), 0.05).build());
    CompactionResult none =
        new SummarizeProvider().compress(m, withShare(config(limit, 2_000), "0").build());
    assertThat(COUNTER.countText(identifiersSection(small)))
        .isLessThanOrEqualTo((int) (0.05 * limit));
    List<String> all = Checkpoint.parse(checkpointOf(full).content()).identifiers();
    List<String> fewer = Checkpoint.parse(checkpointOf(small).content()).identifiers();
    assertThat(fewer).isNotEmpty().hasSizeLessThan(all.size());
    // the same ranking, cut shorter: every name of the smaller index is in the larger one
    assertThat(all).containsAll(fewer);
    // with no index, only the names the verifier adds for the kept messages are listed
    assertThat(Checkpoint.parse(checkpointOf(none).content()).identifiers())
        .hasSizeLessThan(fewer.size());
    assertThat(tokens(none.messages())).isLessThan(tokens(small.messages()));

    assertThatThrownBy(
            () -> new SummarizeProvider().compress(m, withShare(config(limit, 2_000), 1.5).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(SummarizeProvider.INDEX_SHARE)
        .hasMessageContaining("1.5");
  }

  private static CompressionConfig.Builder withShare(CompressionConfig.Builder b, Object share) {
    return b.extraConfig(
        Map.of(SummarizeProvider.KEEP_RECENT_TOKENS, 2_000, SummarizeProvider.INDEX_SHARE, share));
  }

  @Test
  void instructions_projectWideThenInline_reachTheSummarizer() {
    Recording rec = new Recording(new ExtractiveSummarizer());
    CompressionConfig c =
        config(null, 100)
            .extraConfig(
                Map.of(
                    SummarizeProvider.COMPACT_INSTRUCTIONS,
                    "Always note the task ID.",
                    SummarizeProvider.INSTRUCTIONS,
                    "focus on the failing test",
                    SummarizeProvider.KEEP_RECENT_TOKENS,
                    "100"))
            .build();
    new SummarizeProvider(rec).compress(agentLog(10), c);
    assertThat(rec.instructions)
        .containsExactly("Always note the task ID.\n\nfocus on the failing test");
  }

  @Test
  void aBadKeepRecentTokens_failsNamingTheValue() {
    CompressionConfig c =
        config(null, 0).extraConfig(Map.of(SummarizeProvider.KEEP_RECENT_TOKENS, "lots")).build();
    assertThatThrownBy(() -> new SummarizeProvider().compress(agentLog(3), c))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "extraConfig keep_recent_tokens must be a whole number of tokens >= 0, got \"lots\"");
    CompressionConfig neg =
        config(null, 0).extraConfig(Map.of(SummarizeProvider.KEEP_RECENT_TOKENS, -5)).build();
    assertThatThrownBy(() -> new SummarizeProvider().compress(agentLog(3), neg))
        .hasMessageContaining("got -5");
  }

  @Test
  void aFailingSummarizer_givesASummarizationException_soDoesAnEmptyCheckpoint() {
    Summarizer broken =
        (covered, previous, instr) -> {
          throw new IllegalStateException("model unavailable");
        };
    assertThatThrownBy(
            () -> new SummarizeProvider(broken).compress(agentLog(5), config(null, 0).build()))
        .isInstanceOf(SummarizationException.class)
        .hasMessageContaining("model unavailable");
    Summarizer empty = (covered, previous, instr) -> Checkpoint.empty();
    assertThatThrownBy(
            () -> new SummarizeProvider(empty).compress(agentLog(5), config(null, 0).build()))
        .isInstanceOf(SummarizationException.class)
        .hasMessageContaining("empty checkpoint");
  }

  @Test
  void nothingToSummarize_givesTheInputBack() {
    List<Message> m = agentLog(3);
    CompactionResult r = summarize(m, null, 100_000);
    assertThat(r.messages()).isEqualTo(m);
    assertThat(r.limitations()).singleElement().asString().startsWith("nothing to summarize");
  }

  @Test
  void shouldCompress_onlyWithALimitThatIsExceeded() {
    List<Message> m = agentLog(3);
    SummarizeProvider p = new SummarizeProvider();
    assertThat(p.shouldCompress(m, config(null, 0).build())).isFalse();
    assertThat(p.shouldCompress(m, config((int) tokens(m) - 1, 0).build())).isTrue();
    assertThat(p.shouldCompress(m, config((int) tokens(m), 0).build())).isFalse();
  }
}
