package dev.compactor.chat.internal;

import static dev.compactor.chat.testing.ChatTaskAssertions.assertFailsWith;
import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.internal.SummaryCompactor.Selection;
import dev.compactor.chat.settings.SummarySettings;
import dev.compactor.chat.settings.SummarySettings.Activation;
import dev.compactor.chat.settings.SummarySettings.MainSystemMessage;
import dev.compactor.chat.settings.SummarySettings.MessageSelection;
import dev.compactor.chat.testing.FakeChatModel;
import dev.compactor.core.catalog.PriceTable;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.core.view.Violation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SummaryCompactorTest {
  private static MessageSelection keep(int n) {
    return new MessageSelection(MainSystemMessage.EXCLUDE, n);
  }

  private static List<Message> plain(int n, boolean system) {
    List<Message> h = new ArrayList<>();
    if (system) {
      h.add(Message.system("main"));
    }
    for (int i = 0; i < n; i++) {
      h.add(i % 2 == 0 ? Message.user("u" + i) : Message.assistant("a" + i));
    }
    return h;
  }

  @Test
  void thresholdReached_byEitherThreshold_whicheverFirst() {
    Activation both = new Activation(10, 1000L);
    assertThat(SummaryCompactor.thresholdReached(both, 9, 999L)).isFalse();
    assertThat(SummaryCompactor.thresholdReached(both, 10, 0L)).isTrue();
    assertThat(SummaryCompactor.thresholdReached(both, 1, 1000L)).isTrue();
    assertThat(SummaryCompactor.thresholdReached(both, 1, null)).isFalse();
    assertThat(SummaryCompactor.thresholdReached(new Activation(null, 50L), 500, 49L)).isFalse();
  }

  @Test
  void select_excludesTheMainSystemMessage_andKeepsTheLastMessages() {
    assertThat(SummaryCompactor.select(plain(10, true), keep(3))).contains(new Selection(1, 8));
    assertThat(
            SummaryCompactor.select(
                plain(10, true), new MessageSelection(MainSystemMessage.INCLUDE, 3)))
        .contains(new Selection(0, 8));
    assertThat(SummaryCompactor.select(plain(10, false), keep(3))).contains(new Selection(0, 7));
    assertThat(SummaryCompactor.select(plain(10, false), keep(0))).contains(new Selection(0, 10));
  }

  @Test
  void select_fewerThanTwoMessagesToSummarize_isEmpty() {
    assertThat(SummaryCompactor.select(plain(4, true), keep(3))).isEmpty();
    assertThat(SummaryCompactor.select(plain(5, true), keep(3))).contains(new Selection(1, 3));
    assertThat(SummaryCompactor.select(List.of(), keep(0))).isEmpty();
  }

  @Test
  void select_widensTheKeptWindowBackwards_overParallelToolResults() {
    List<Message> h = new ArrayList<>(plain(4, true)); // 0 system, 1..4
    h.add(
        Message.assistant(
            "", List.of(new ToolCall("c1", "a", "{}"), new ToolCall("c2", "b", "{}")))); // 5
    h.add(Message.toolResult("c1", "r1")); // 6
    h.add(Message.toolResult("c2", "r2")); // 7
    h.add(Message.assistant("done")); // 8

    // Keeping 2 would start at the second result: the call and both results stay together.
    assertThat(SummaryCompactor.select(h, keep(2))).contains(new Selection(1, 5));
    assertThat(SummaryCompactor.select(h, keep(3))).contains(new Selection(1, 5));
    assertThat(SummaryCompactor.select(h, keep(4))).contains(new Selection(1, 5));
    assertThat(SummaryCompactor.select(h, keep(1))).contains(new Selection(1, 8));
  }

  /** Property: on generated histories the kept part never holds a result whose call went. */
  @Test
  void select_neverSeparatesAToolResultFromItsCall_onGeneratedHistories() {
    long seed = 20260301L;
    Random random = new Random(seed);
    ViewValidator validator = new ViewValidator();
    for (int run = 0; run < 2000; run++) {
      List<Message> h = generate(random);
      int keepLast = random.nextInt(8);
      MessageSelection sel =
          new MessageSelection(
              random.nextBoolean() ? MainSystemMessage.EXCLUDE : MainSystemMessage.INCLUDE,
              keepLast);
      Optional<Selection> s = SummaryCompactor.select(h, sel);
      if (s.isEmpty()) {
        continue;
      }
      List<Message> after = new ArrayList<>(h.subList(0, s.get().start()));
      after.add(Message.system("summary"));
      after.addAll(h.subList(s.get().end(), h.size()));
      List<Violation> violations = validator.validate(after);
      assertThat(violations)
          .as("seed %d run %d keep %d history %s", seed, run, keepLast, describe(h))
          .isEmpty();
      assertThat(h.size() - s.get().end())
          .as("kept at least keep_last_messages")
          .isGreaterThanOrEqualTo(Math.min(keepLast, h.size() - s.get().start()));
    }
  }

  private static List<Message> generate(Random r) {
    List<Message> h = new ArrayList<>();
    if (r.nextBoolean()) {
      h.add(Message.system("main"));
    }
    int turns = 1 + r.nextInt(12);
    int call = 0;
    for (int t = 0; t < turns; t++) {
      h.add(Message.user("q" + t));
      int steps = r.nextInt(3);
      for (int s = 0; s < steps; s++) {
        int parallel = 1 + r.nextInt(3);
        List<ToolCall> calls = new ArrayList<>();
        for (int p = 0; p < parallel; p++) {
          calls.add(new ToolCall("c" + call++, "tool", "{}"));
        }
        h.add(Message.assistant("", calls));
        for (ToolCall c : calls) {
          h.add(Message.toolResult(c.id(), "result of " + c.id()));
        }
      }
      h.add(Message.assistant("answer " + t));
    }
    return h;
  }

  private static String describe(List<Message> h) {
    StringBuilder sb = new StringBuilder();
    for (Message m : h) {
      sb.append(m.role().wireName().charAt(0));
      if (m.hasToolCalls()) {
        sb.append(m.toolCalls().size());
      }
    }
    return sb.toString();
  }

  @Test
  void summarize_replacesTheSelection_keepsTimestampsInOrder_andMarksTheMessage() {
    List<Message> h = new ArrayList<>();
    Instant t = Instant.parse("2025-01-01T00:00:00Z");
    for (int i = 0; i < 6; i++) {
      h.add(
          Message.builder(i % 2 == 0 ? Role.USER : Role.ASSISTANT)
              .content("m" + i)
              .timestamp(t.plusSeconds(i))
              .build());
    }
    FakeChatModel model =
        new FakeChatModel("gpt-4o-mini", ModelApi.RESPONSES).respond(r -> "  the gist  ");
    SummaryCompactor compactor = new SummaryCompactor(PriceTable.builtIn(), () -> "u-1");

    SummaryCompactor.Summary s =
        compactor.summarize(
            h, new Selection(0, 4), SummarySettings.DEFAULTS, model, "openai/gpt-4o-mini");

    assertThat(s.uuid()).isEqualTo("u-1");
    assertThat(s.summaryText()).isEqualTo("the gist");
    assertThat(s.history()).hasSize(3);
    assertThat(s.history().get(0)).isSameAs(s.summaryMessage());
    assertThat(s.summaryMessage().timestamp()).isEqualTo(t.plusSeconds(3));
    assertThat(s.summaryMessage().metadata().extra()).containsEntry("gpt_summary_uuid", "u-1");
    assertThat(s.summaryMessage().id().value()).isEqualTo("summary-u-1");
    assertThat(s.covered()).containsExactlyElementsOf(h.subList(0, 4));
    assertThat(new ViewValidator().validate(s.history())).isEmpty();
    // 10 tokens per message sent (2), 5 output, at gpt-4o-mini prices.
    assertThat(s.usage().costUsd()).isEqualByComparingTo("0.000006");
    String request = model.requests().get(0).messages().get(1).content();
    assertThat(request)
        .contains("[1] user:\nm0")
        .contains("[4] assistant:\nm3")
        .doesNotContain("m4");
    assertThat(model.requests().get(0).maxOutputTokens()).isEqualTo(1024);
    assertThat(model.requests().get(0).messages().get(0).content())
        .isEqualTo(SummarySettings.DEFAULT_INSTRUCTIONS);
  }

  @Test
  void summarize_emptyAnswer_fails() {
    FakeChatModel model = new FakeChatModel("m", ModelApi.RESPONSES).respond(r -> " ");
    SummaryCompactor compactor = new SummaryCompactor(PriceTable.empty(), () -> "u");
    assertFailsWith(
        () ->
            compactor.summarize(
                plain(4, false), new Selection(0, 2), SummarySettings.DEFAULTS, model, "x/m"),
        ChatTaskException.Code.SUMMARIZE_FAILED,
        "no text");
  }

  @Test
  void transcript_rendersToolCallsAndResults_andClipsHugeMessages() {
    String huge = "x".repeat(20_000);
    String t =
        SummaryCompactor.transcript(
            List.of(
                Message.assistant("", List.of(new ToolCall("c1", "grep", "{\"q\":\"a\"}"))),
                Message.toolResult("c1", huge)));
    assertThat(t)
        .contains("-> tool call grep (c1): {\"q\":\"a\"}")
        .contains("[2] tool result (c1):");
    assertThat(t).contains("characters omitted");
    assertThat(t.length()).isLessThan(10_000);
  }
}
