package dev.compactor.core.compaction.trim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.fixtures.Conv;
import dev.compactor.core.compaction.fixtures.RecordingArchive;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.ViewValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TrimProviderTest {
  /** Plain prose: the same sentence 200 times. */
  private static final String PROSE = "This is a test sentence with some words. ".repeat(200);

  private static final TokenCounter COUNTER = TokenCounters.estimate();
  private final TrimProvider trim = new TrimProvider();
  private final RecordingArchive archive = new RecordingArchive();

  private CompressionConfig.Builder config(Integer limit) {
    return CompressionConfig.builder().limit(limit).counter(COUNTER).archive(archive);
  }

  private static long tokens(List<Message> m) {
    return COUNTER.countMessages(m);
  }

  private static String findOutput() {
    return "Ran command: `find /usr -type f`\n" + Conv.lines("/usr/share/doc/pkg-", 7000);
  }

  // ---------------------------------------------------------------- parity scenarios

  @Test
  void parity1_threeSmallMessages_needNoCompaction_andComeBackUnchanged() {
    List<Message> m = new Conv().system("You are helpful.").user("Hi").assistant("Hello!").build();
    CompressionConfig c = config(128_000).trimTargetRatio(0.7).build();

    assertThat(trim.shouldCompress(m, c)).isFalse();
    CompactionResult r = trim.compress(m, c);
    assertThat(r.messages()).isEqualTo(m);
    assertThat(r.provenance()).isEmpty();
    assertThat(r.limitations()).isEmpty();
    assertThat(archive.saved).isEmpty();
  }

  /**
   * A coding agent asked to list every file under /usr: the {@code find} output ({@link
   * #findOutput()}, pinned or not) and the answer; the caller adds what follows.
   */
  private static Conv findEveryFile(boolean pinned) {
    return new Conv()
        .system("You are a coding agent.")
        .user("List every file under /usr.")
        .tool("shell", "{\"command\":\"find /usr -type f\"}", findOutput(), pinned)
        .assistant("There are many files.");
  }

  @Test
  void parity2_bigCommandOutputAt85Percent_estimatePicksTrim_andTruncationKeepsTheCommand() {
    List<Message> m = findEveryFile(false).user("Thanks, now count them.").build();
    int limit = (int) (tokens(m) / 0.85);
    CompressionConfig c = config(limit).trimTargetRatio(0.7).build();

    assertThat(trim.estimateSavings(m, c).ratio()).isGreaterThanOrEqualTo(0.10);
    TrimOutcome o = trim.trim(m, c);
    assertThat(o.targetReached()).isTrue();
    Message cut = o.result().messages().get(3);
    assertThat(cut.content())
        .startsWith("Ran command: `find /usr -type f`\n")
        .contains(" tokens truncated (lines ")
        .contains("saved#1 of m3")
        .endsWith("/usr/share/doc/pkg-06999 lorem ipsum dolor sit\n");
    assertThat(COUNTER.countMessage(cut)).isLessThanOrEqualTo(c.maxToolResultTokens());
  }

  @Test
  void parity2_staleBigOutput_becomesAStubUnder200Tokens_namingTheCommand() {
    List<Message> m =
        findEveryFile(false)
            .assistant("Shall I count them?")
            .assistant("I can also group them.")
            .user("Thanks, now count them.")
            .build();
    CompressionConfig c = config((int) (tokens(m) / 0.85)).trimTargetRatio(0.7).build();

    TrimOutcome o = trim.trim(m, c);
    Message stub = o.result().messages().get(3);
    assertThat(o.stubbed()).isEqualTo(1);
    assertThat(stub.content())
        .startsWith("[Stale tool output pruned - ")
        .contains("(shell {\"command\":\"find /usr -type f\"})")
        .contains("saved#1 of m3")
        .endsWith("You can ask for it to be recovered if needed.");
    assertThat(COUNTER.countMessage(stub)).isLessThan(200);
    assertThat(archive.saved.get(0).content()).isEqualTo(m.get(3).content());
  }

  @Test
  void aStub_keepsTheNamesItsOutputDefined_thatNothingElseInTheViewNames() {
    String module =
        "def compute_invoice_total(items):\n"
            + "    return sum(i.price for i in items)\n\n"
            + "class InvoiceRenderer:\n"
            + "    def render_pdf(self, invoice_id):\n"
            + "        return draw_page(invoice_id)\n"
            + Conv.lines("    # padding line ", 80);
    List<Message> m =
        new Conv()
            .system("You are a coding agent.")
            .user("Fix the invoice totals.")
            .tool("read_file", "{\"path\":\"billing/invoice.py\"}", module)
            .assistant("compute_invoice_total is the entry point.")
            .assistant("Looking further.")
            .assistant("Still looking.")
            .user("Go on.")
            .build();
    TrimOutcome o = trim.trim(m, config((int) (tokens(m) / 0.85)).trimTargetRatio(0.7).build());
    assertThat(o.stubbed()).isEqualTo(1);
    String stub = o.result().messages().get(3).content();
    assertThat(stub)
        .startsWith("[Stale tool output pruned - ")
        .contains("`InvoiceRenderer`", "`render_pdf`")
        .doesNotContain("`compute_invoice_total`"); // the assistant still names it
    assertThat(COUNTER.countMessage(o.result().messages().get(3))).isLessThan(200);
  }

  @Test
  void aMaskingPlaceholder_isNeverStubbed_soItsIndexOfNamesStays() {
    List<String> index = new java.util.ArrayList<>();
    for (int i = 0; i < 80; i++) {
      index.add("invoice_helper_" + i);
    }
    String placeholder =
        dev.compactor.core.compaction.mask.MaskProvider.placeholder(
            4_000, List.of("billing/invoice.py"), List.of("InvoiceRenderer"), index, "saved#7");
    List<Message> m =
        new java.util.ArrayList<>(
            new Conv()
                .system("You are a coding agent.")
                .user("Fix the invoice totals.")
                .tool("read_file", "{\"path\":\"billing/invoice.py\"}", "x")
                .assistant("Looking further.")
                .assistant("Still looking.")
                .assistant("And further.")
                .user("Go on.")
                .build());
    m.set(3, m.get(3).toBuilder().content(placeholder).build());
    assertThat(COUNTER.countMessage(m.get(3))).isGreaterThanOrEqualTo(200); // a stale candidate
    TrimOutcome o = trim.trim(m, config((int) (tokens(m) / 0.85)).trimTargetRatio(0.7).build());
    assertThat(o.stubbed()).isZero();
    assertThat(o.result().messages().get(3).content()).isEqualTo(placeholder);
  }

  @Test
  void parity3_pinnedBigOutput_isUntouched_andTheShortfallIsReported() {
    List<Message> m = findEveryFile(true).user("Thanks, now count them.").build();
    CompressionConfig c = config((int) (tokens(m) / 0.85)).trimTargetRatio(0.7).build();

    TrimOutcome o = trim.trim(m, c);
    assertThat(o.result().messages()).isEqualTo(m);
    assertThat(o.targetReached()).isFalse();
    assertThat(o.result().limitations())
        .anySatisfy(l -> assertThat(l).startsWith("target not reached: " + o.tokensAfter()));
  }

  @Test
  void parity8_longAssistantMessageThreeFromTheEnd_isShorter_keepingCodeAndNewlines() {
    String code = "```python\ndef hello():\n\n    print('hi')\n```";
    String text =
        PROSE
            + "\n\n"
            + code
            + "\n\n"
            + "In conclusion, the implementation works correctly. ".repeat(50);
    List<Message> m =
        new Conv()
            .system("sys")
            .user("Explain.")
            .assistant(text.strip())
            .assistant("Anything else?")
            .user("No.")
            .assistant("Bye.")
            .build();
    CompressionConfig c = config((int) (tokens(m) * 0.9)).trimTargetRatio(0.7).build();

    TrimOutcome o = trim.trim(m, c);
    Message compressed = o.result().messages().get(2);
    assertThat(o.compressed()).isEqualTo(1);
    assertThat(compressed.content().length()).isLessThan(m.get(2).content().length());
    assertThat(compressed.content())
        .contains("\n\n" + code + "\n\n")
        .contains("[Extractive compression kept 175 of 250 sentences; full text: saved#1 of m2]");
  }

  @Test
  void parity9_longAssistantMessageWithAToolCall_isUnchanged() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("Go.")
            .add(
                Message.builder(dev.compactor.core.message.Role.ASSISTANT)
                    .id("m2")
                    .content(PROSE)
                    .toolCalls(
                        List.of(
                            new dev.compactor.core.message.ToolCall(
                                "call_x", "shell", "{\"command\":\"ls\"}"))))
            .add(
                Message.builder(dev.compactor.core.message.Role.TOOL)
                    .id("m3")
                    .toolCallId("call_x")
                    .content("a\nb"))
            .assistant("ok")
            .assistant("done")
            .user("Next.")
            .build();
    CompressionConfig c = config((int) (tokens(m) * 0.9)).trimTargetRatio(0.7).build();

    assertThat(trim.compress(m, c).messages()).isEqualTo(m);
  }

  @Test
  void parity10_hundredShortUserMessages_saveUnderTenPercent_soThePolicySummarizes() {
    Conv conv = new Conv();
    IntStream.range(0, 100).forEach(i -> conv.user("Short message " + i));
    List<Message> m = conv.build();
    CompressionConfig c = config(100).trimTargetRatio(0.7).build();

    assertThat(trim.shouldCompress(m, c)).isTrue();
    assertThat(trim.estimateSavings(m, c).ratio()).isLessThan(0.10);
    TrimOutcome o = trim.trim(m, c);
    assertThat(o.changed()).isFalse();
    assertThat(o.targetReached()).isFalse();
  }

  // ---------------------------------------------------------------- protection (13-17)

  private static List<Message> bigOutputsEverywhere(boolean pinFirstUser) {
    Conv c = new Conv().system("sys");
    if (pinFirstUser) {
      c.pinnedUser("Read everything. " + "Remember this. ".repeat(300));
    } else {
      c.user("Read everything.");
    }
    return c.tool("read_file", "{\"path\":\"a.txt\"}", Conv.lines("a", 400))
        .tool("read_file", "{\"path\":\"b.txt\"}", Conv.lines("b", 400))
        .tool("read_file", "{\"path\":\"c.txt\"}", Conv.lines("c", 400))
        .assistant("Read three files.")
        .user("Now summarize them.")
        .tool("read_file", "{\"path\":\"d.txt\"}", Conv.lines("d", 400))
        .build();
  }

  @Test
  void keepHead_protectsTheFirstMessages_inEveryPhase() {
    List<Message> m = bigOutputsEverywhere(false);
    CompactionResult r = trim.compress(m, config(null).keepHead(4).build());
    assertThat(r.messages().subList(0, 4)).isEqualTo(m.subList(0, 4));
    assertThat(r.messages().get(5)).isNotEqualTo(m.get(5));
    assertThat(r.messages().get(7)).isNotEqualTo(m.get(7));
  }

  @Test
  void keepHeadZero_letsTheFirstToolOutputBeTrimmed() {
    List<Message> m = bigOutputsEverywhere(false);
    CompactionResult r = trim.compress(m, config(null).build());
    assertThat(r.messages().get(3)).isNotEqualTo(m.get(3));
    assertThat(r.provenance()).containsValue(List.of(MessageId.of("m3")));
  }

  @Test
  void pinnedMessages_areNeverTouched() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("Read.")
            .tool("read_file", "{\"path\":\"a.txt\"}", Conv.lines("a", 400), true)
            .pinnedUser("Keep: " + PROSE)
            .assistant("I looked. " + PROSE)
            .assistant("one")
            .assistant("two")
            .user("go on")
            .build();
    m =
        List.of(
            m.get(0),
            m.get(1),
            m.get(2),
            m.get(3),
            m.get(4),
            m.get(5).toBuilder().pinned(true).build(),
            m.get(6),
            m.get(7),
            m.get(8));
    CompactionResult r = trim.compress(m, config(null).build());
    assertThat(r.messages().get(3)).isEqualTo(m.get(3)); // pinned tool output
    assertThat(r.messages().get(4)).isEqualTo(m.get(4)); // pinned user
    assertThat(r.messages().get(5)).isEqualTo(m.get(5)); // pinned long assistant
  }

  @Test
  void theLastUserMessageAndEverythingAfterIt_areNeverTouched() {
    List<Message> m = bigOutputsEverywhere(false);
    CompactionResult r = trim.compress(m, config(null).build());
    int lastUser = 9;
    assertThat(m.get(lastUser).role()).isEqualTo(dev.compactor.core.message.Role.USER);
    assertThat(r.messages().subList(lastUser, m.size())).isEqualTo(m.subList(lastUser, m.size()));
  }

  @Test
  void aPendingCallAndTheResultsThatArrived_areNeverTouched_evenWithoutAUserMessage() {
    List<Message> m =
        new Conv()
            .system("sys")
            .tool("read_file", "{\"path\":\"a.txt\"}", Conv.lines("a", 400))
            .assistant("x")
            .assistant("y")
            .assistant("z")
            .parallel(Conv.lines("p", 400), Conv.lines("q", 400))
            .build();
    // drop one parallel result: the call is pending
    List<Message> pending = m.subList(0, m.size() - 1);
    CompactionResult r = trim.compress(pending, config(null).build());
    assertThat(r.messages().get(2)).isNotEqualTo(pending.get(2));
    assertThat(r.messages().subList(6, pending.size()))
        .isEqualTo(pending.subList(6, pending.size()));
  }

  @Test
  void messagesWithReasoning_areNeverRewritten() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("go")
            .thinkingAssistant(PROSE)
            .assistant("a")
            .assistant("b")
            .user("c")
            .build();
    CompactionResult r = trim.compress(m, config(null).build());
    assertThat(r.messages()).isEqualTo(m);
  }

  @Test
  void inlineThinkBlocks_areReasoning_neverRewritten_neverCountedAsSavings() {
    // gptme keeps the model's <think> text inline in the assistant message.
    for (String tag : List.of("think", "thinking")) {
      List<Message> m =
          new Conv()
              .system("sys")
              .user("go")
              .assistant(
                  "<" + tag + ">\nThe user wants a plan. " + PROSE + "\n</" + tag + ">\n" + PROSE)
              .assistant("a")
              .assistant("b")
              .user("c")
              .build();
      CompressionConfig c = config(null).build();
      assertThat(trim.compress(m, c).messages()).as(tag).isEqualTo(m);
      assertThat(trim.estimateSavings(m, c).ratio()).as(tag).isZero();
    }
  }

  // ---------------------------------------------------------------- phases

  @Test
  void truncation_keepsHeadAndTailOnLineBoundaries_andTheArchiveGetsExactlyTheMiddle() {
    String output = Conv.lines("line-", 3000);
    List<Message> m =
        new Conv()
            .system("sys")
            .user("run it")
            .tool("shell", "{\"command\":\"./gen\"}", output)
            .user("thanks")
            .build();
    CompressionConfig c = config(null).maxToolResultTokens(1000).build();
    TrimOutcome o = trim.trim(m, c);

    assertThat(o.truncated()).isEqualTo(1);
    String cut = o.result().messages().get(3).content();
    int marker = cut.indexOf("[... ");
    String head = cut.substring(0, marker);
    String tail = cut.substring(cut.indexOf(" ...]\n") + " ...]\n".length());
    assertThat(head).endsWith("\n").startsWith("line-00000 ");
    assertThat(output).startsWith(head).endsWith(tail);
    assertThat(COUNTER.countText(head)).isBetween(300, 400);
    assertThat(COUNTER.countText(tail)).isBetween(150, 200);
    assertThat(archive.saved).hasSize(1);
    assertThat(head + archive.saved.get(0).content() + tail).isEqualTo(output);
    int firstRemoved = head.split("\n").length + 1;
    assertThat(cut).contains("(lines " + firstRemoved + "-");
    assertThat(cut)
        .contains(" of 3000) of the output of (shell {\"command\":\"./gen\"}); saved#1 of m3 ...]");
  }

  @Test
  void truncation_withAnExactCounter_reportsTheTokensTheResultHas_blankLinesAndSlashesIncluded() {
    // Lines the split joins to the one before (blank lines, paths after punctuation) at every
    // place, so the head, the tail and the marker meet such lines too.
    StringBuilder out = new StringBuilder("Ran command: `find / -name '*.so'`\n");
    for (int i = 0; i < 4000; i++) {
      out.append(
          switch (i % 5) {
            case 0 -> "found:\n";
            case 1 -> "/usr/lib/x" + i + ".so\n";
            case 2 -> "\n";
            case 3 -> "   \n";
            default -> "  size " + i + " bytes.\n";
          });
    }
    List<Message> m =
        new Conv()
            .system("sys")
            .user("find them")
            .tool("shell", "{\"command\":\"find / -name '*.so'\"}", out.toString())
            .tool("shell", "{\"command\":\"ls /\"}", "/\n" + out.substring(200, 30_000))
            .user("thanks")
            .build();
    TokenCounter o200k = TokenCounters.o200k();
    TokenCounter jtokkit =
        TokenCounters.custom(
            "o200k-jtokkit-" + java.util.UUID.randomUUID(),
            dev.compactor.core.tokens.TokenizerFamily.O200K_BASE,
            com.knuddels.jtokkit.Encodings.newLazyEncodingRegistry()
                    .getEncoding(com.knuddels.jtokkit.api.EncodingType.O200K_BASE)
                ::countTokensOrdinary,
            dev.compactor.core.tokens.MessageOverhead.OPENAI);
    CompressionConfig c =
        CompressionConfig.builder()
            .limit(null)
            .counter(o200k)
            .archive(archive)
            .maxToolResultTokens(700)
            .build();
    TrimOutcome o = trim.trim(m, c);

    assertThat(o.truncated()).isEqualTo(2);
    assertThat(o.tokensAfter()).isEqualTo(jtokkit.countMessages(o.result().messages()));
    assertThat(o.tokensBefore()).isEqualTo(jtokkit.countMessages(m));
  }

  @Test
  void truncation_ofOneHugeLine_cutsInsideTheLine() {
    String output = "x".repeat(60_000);
    List<Message> m =
        new Conv().system("sys").user("go").tool("shell", "{}", output).user("ok").build();
    TrimOutcome o = trim.trim(m, config(null).maxToolResultTokens(500).build());
    String cut = o.result().messages().get(3).content();
    assertThat(COUNTER.countMessage(o.result().messages().get(3))).isLessThanOrEqualTo(500);
    assertThat(cut).startsWith("xxx").contains("[... ").endsWith("xxx");
  }

  @Test
  void phasesStopAsSoonAsTheTargetIsReached_stalestFirst() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("read")
            .tool("read_file", "{\"path\":\"a.txt\"}", Conv.lines("a", 300))
            .tool("read_file", "{\"path\":\"b.txt\"}", Conv.lines("b", 300))
            .tool("read_file", "{\"path\":\"c.txt\"}", Conv.lines("c", 300))
            .assistant("one")
            .assistant("two")
            .assistant("three")
            .user("next")
            .build();
    long total = tokens(m);
    long one = COUNTER.countMessage(m.get(3));
    // a target that one stub reaches
    CompressionConfig c = config((int) (total - one / 2)).build();
    TrimOutcome o = trim.trim(m, c);
    assertThat(o.stubbed()).isEqualTo(1);
    assertThat(o.result().messages().get(3)).isNotEqualTo(m.get(3)); // the oldest first
    assertThat(o.result().messages().subList(4, m.size())).isEqualTo(m.subList(4, m.size()));
    assertThat(o.targetReached()).isTrue();
  }

  @Test
  void manyLargeOutputs_areTruncatedLargestFirst_andOnlyUntilTheTargetIsReached() {
    // enough text that the candidates are prepared in batches on several threads
    Conv c = new Conv().system("sys").user("run everything");
    int outputs = 30;
    for (int k = 0; k < outputs; k++) {
      c.tool(
          "shell",
          "{\"command\":\"make t" + k + "\"}",
          "[ERROR] t"
              + k
              + " failed\n"
              + Conv.lines("t" + k + "-", 400 + 37 * ((k * 7) % outputs)));
    }
    List<Message> m = c.assistant("done").user("next").build();
    assertThat(m.stream().mapToLong(x -> x.content().length()).sum())
        .isGreaterThan(2 * TrimProvider.PARALLEL_CHARS);
    long total = tokens(m);
    CompressionConfig cfg = config((int) (total * 0.6)).trimTargetRatio(1.0).build();
    TrimOutcome o = trim.trim(m, cfg);

    assertThat(o.stubbed()).isZero(); // errors are relevant
    assertThat(o.truncated()).isBetween(1, outputs - 1);
    assertThat(o.targetReached()).isTrue();
    List<Message> out = o.result().messages();
    assertThat(tokens(out)).isLessThanOrEqualTo(total * 6 / 10);
    // the truncated ones are the largest
    List<Integer> bySize =
        IntStream.range(0, m.size())
            .filter(i -> m.get(i).role() == Role.TOOL)
            .boxed()
            .sorted(
                (x, y) ->
                    Long.compare(COUNTER.countMessage(m.get(y)), COUNTER.countMessage(m.get(x))))
            .toList();
    List<Integer> cut = bySize.subList(0, o.truncated());
    for (int i : bySize) {
      assertThat(out.get(i) != m.get(i)).as("message %d", i).isEqualTo(cut.contains(i));
    }
    // and it stopped as soon as it could: without the last one the target was not reached
    int last = cut.get(cut.size() - 1);
    List<Message> withoutLast = new ArrayList<>(out);
    withoutLast.set(last, m.get(last));
    assertThat(tokens(withoutLast)).isGreaterThan(total * 6 / 10);
    assertThat(new ViewValidator().validate(out)).isEmpty();
  }

  @Test
  void withoutALimit_everyPhaseIsAppliedFully() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("read")
            .tool("read_file", "{\"path\":\"a.txt\"}", Conv.lines("a", 300))
            .tool("shell", "{\"command\":\"mvn test\"}", "[ERROR] boom\n" + Conv.lines("e", 900))
            .assistant(PROSE)
            .assistant("two")
            .assistant("three")
            .user("next")
            .build();
    TrimOutcome o = trim.trim(m, config(null).build());
    assertThat(o.stubbed()).isEqualTo(1); // the error output is relevant: not stubbed ...
    assertThat(o.truncated()).isEqualTo(1); // ... but truncated
    assertThat(o.compressed()).isEqualTo(1);
    assertThat(o.target()).isNull();
    assertThat(o.targetReached()).isTrue();
    assertThat(o.result().limitations()).noneMatch(l -> l.startsWith("target not reached"));
  }

  @Test
  void relevantOutputs_recentOnes_errorOnes_andOnesWhosePathIsNamedLater_areNotStale() {
    List<Message> m =
        new Conv()
            .system("sys")
            .user("read")
            .tool("read_file", "{}", "src/app/Main.java:\n" + Conv.lines("m", 100))
            .tool("shell", "{}", "Traceback (most recent call last)\n" + Conv.lines("t", 100))
            .tool("read_file", "{}", Conv.lines("plain", 100))
            .assistant("I will edit Main.java next.")
            .assistant("a")
            .assistant("b")
            .tool("read_file", "{}", Conv.lines("recent", 100))
            .user("ok")
            .build();
    TrimOutcome o = trim.trim(m, config(null).build());
    assertThat(o.stubbed()).isEqualTo(1);
    assertThat(o.result().messages().get(7)).isNotEqualTo(m.get(7)); // only the plain one
  }

  @Test
  void replacements_haveNewIdsAndProvenance_keepingRoleCallIdTimestampAndValidity() {
    List<Message> m = bigOutputsEverywhere(false);
    CompactionResult r = trim.compress(m, config(null).build());
    assertThat(r.messages()).hasSameSizeAs(m);
    for (int i = 0; i < m.size(); i++) {
      Message before = m.get(i);
      Message after = r.messages().get(i);
      assertThat(after.role()).isEqualTo(before.role());
      assertThat(after.timestamp()).isEqualTo(before.timestamp());
      assertThat(after.toolCallId()).isEqualTo(before.toolCallId());
      if (!after.equals(before)) {
        assertThat(after.id()).isNotEqualTo(before.id());
        assertThat(after.id().value()).startsWith(before.id().value() + "~");
        assertThat(r.provenance()).containsEntry(after.id(), List.of(before.id()));
        assertThat(after.metadata().extra()).containsKey(TrimProvider.COMPACTED_KEY);
      }
    }
    assertThat(new ViewValidator().validate(r.messages())).isEmpty();
  }

  @Test
  void aConfiguredReasoningStripThreshold_isReportedAsNotSupported() {
    List<Message> m = bigOutputsEverywhere(false);
    CompactionResult r = trim.compress(m, config(null).reasoningStripAgeThreshold(5).build());
    assertThat(r.limitations()).anySatisfy(l -> assertThat(l).contains("reasoning stripping"));
  }

  @Test
  void estimateSavings_isInTheRangeOfWhatAFullTrimSaves() {
    List<Message> m = bigOutputsEverywhere(false);
    CompressionConfig c = config(null).build();
    SavingsEstimate e = trim.estimateSavings(m, c);
    TrimOutcome o = trim.trim(m, c);
    assertThat(e.storedTokens()).isEqualTo(o.tokensBefore());
    assertThat((double) e.savedTokens())
        .isCloseTo(o.savedTokens(), org.assertj.core.data.Percentage.withPercentage(15));
    assertThat(archive.saved).hasSize(o.stubbed() + o.truncated() + o.compressed());
  }

  @Test
  void theInputListIsNotModified() {
    List<Message> m = new java.util.ArrayList<>(bigOutputsEverywhere(true));
    List<Message> copy = List.copyOf(m);
    trim.compress(m, config(10).build());
    assertThat(m).isEqualTo(copy);
  }
}
