package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.log.store.CompactionRecord;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compactor chat} on a real pseudo-terminal ({@code script} of util-linux gives the child
 * process one), against the fake provider on 127.0.0.1: a conversation long enough for the 90 %
 * reminder and two automatic compactions, {@code /compact summarize focus on …} passing its
 * instructions to the summarizer, {@code /context} figures equal to what {@code compactor inspect}
 * reports for the same conversation directory, {@code /view}, {@code /recover}, {@code /budget}.
 * Skipped, saying why, where no pseudo-terminal can be had.
 */
class ChatTerminalTest {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String MODEL = "openai/gpt-4o";
  private static final String PROJECT_RULE = "Always note the ticket ID CHAT-42.";
  private static final String FOCUS = "focus on the failing parser test";

  /** The status line that ends every answered turn: "[context N of B tokens (P %)]". */
  private static final String TURN_END = "%)]";

  @Test
  void terminal_reminderTwoAutoCompactions_summarizeInstructions_contextMatchesInspect(
      @TempDir Path dir) throws Exception {
    Assumptions.assumeTrue(
        ChatProcess.ptyAvailable(),
        "no pseudo-terminal: script(1) of util-linux is not installed (apt-get install"
            + " bsdutils); the pipe mode is covered by ChatPipeTest");
    Path home = Files.createDirectories(dir.resolve("home"));
    Path work = Files.createDirectories(dir.resolve("work"));
    Files.writeString(
        work.resolve("compactor.toml"),
        "[context]\ncompact_instructions = \"" + PROJECT_RULE + "\"\n");
    Path conversation = home.resolve("data/compactor/conversations/tty");
    try (FakeModelServer fake = FakeChat.start();
        ChatProcess p =
            ChatProcess.pty(
                home,
                work,
                "--name",
                "tty",
                "--model",
                MODEL,
                "--base-url",
                fake.baseUrl(),
                "--context-budget",
                "4000")) {
      p.await("/help lists the commands", 1, WAIT);
      int turns = 0;
      while (ChatProcess.count(p.screen(), "[compacted automatically") < 2) {
        assertThat(turns)
            .as("turns without two automatic compactions:\n" + p.screen())
            .isLessThan(40);
        turns++;
        p.type("question " + turns);
        p.await(TURN_END, turns, WAIT);
      }
      String screen = p.screen();
      assertThat(screen)
          .as("streamed answers")
          .contains(FakeChat.answer(1))
          .contains(FakeChat.answer(turns));
      int reminder = screen.indexOf("reminder sent to the model");
      int firstCompaction = screen.indexOf("[compacted automatically");
      assertThat(reminder).as("the 90 % reminder, before the first compaction").isPositive();
      assertThat(reminder).as(screen).isLessThan(firstCompaction);

      // The reminder is provider-visible and carries the project's compact_instructions.
      RecordedRequest afterReminder =
          FakeChat.chats(fake).stream()
              .filter(r -> String.join("\n", r.texts()).contains("[Context notice"))
              .findFirst()
              .orElseThrow();
      assertThat(String.join("\n", afterReminder.texts()))
          .contains("Project instructions: " + PROJECT_RULE);
      // Status lines are UI-only: never sent.
      for (RecordedRequest r : fake.requests()) {
        assertThat(r.body())
            .doesNotContain("[context ")
            .doesNotContain("compacted automatically")
            .doesNotContain("Compacted with");
      }

      // A few more turns, so that there is an older part to summarize beyond the kept tail.
      for (int i = 0; i < 5; i++) {
        turns++;
        p.type("question " + turns);
        p.await(TURN_END, turns, WAIT);
      }
      // /compact summarize with inline instructions: they reach the summarizer.
      int summariesBefore = FakeChat.summaries(fake).size();
      p.type("/compact summarize " + FOCUS);
      p.await("[compacted with summarize", 1, WAIT);
      List<RecordedRequest> summaries = FakeChat.summaries(fake);
      assertThat(summaries).hasSize(summariesBefore + 1);
      String prompt = summaries.get(summaries.size() - 1).system();
      assertThat(prompt).contains(FOCUS).contains(PROJECT_RULE);
      assertThat(prompt.indexOf(PROJECT_RULE)).isLessThan(prompt.indexOf(FOCUS));

      // One more turn after the summary, then /context against inspect.
      turns++;
      p.type("question " + turns);
      p.await(TURN_END, turns, WAIT);
      p.type("/context");
      p.await("compaction  at", 1, WAIT);
      String context = after(p.screen(), "> /context");
      JsonNode inspect = inspect(home, conversation);
      assertSameFigures(context, inspect);

      // /view names the synthesized entries; /recover gives back their originals.
      p.type("/view");
      p.await("synthesized, stands for", 1, WAIT);
      String view = after(p.screen(), "> /view");
      Matcher stub =
          Pattern.compile("(?m)^  (\\S+)\\s+\\S+\\s+[\\d,]+\\s+synthesized, stands for (\\d+)")
              .matcher(view);
      assertThat(stub.find()).as(view).isTrue();
      p.type("/recover " + stub.group(1));
      p.await("original message(s):", 1, WAIT);
      p.await("--- m0002 assistant", 1, WAIT);
      assertThat(after(p.screen(), "> /recover")).contains(FakeChat.answer(1));

      // /budget sets the budget and keeps it for the conversation.
      p.type("/budget 3000");
      p.await("kept for conversation tty", 1, WAIT);
      assertThat(after(p.screen(), "> /budget")).contains("budget 3,000 tokens");

      // Ctrl-C while an answer is on its way stops the answer, not the chat.
      int requests = fake.requests().size();
      p.type("question slowly");
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (fake.requests().size() == requests && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      p.keys("\u0003");
      p.await("[answer interrupted", 1, WAIT);
      assertThat(p.process.isAlive()).isTrue();
      p.type("/exit");
      assertThat(p.exitCode(WAIT)).isZero();
      assertThat(fake.rejections()).isEmpty();
    }

    try (StoredConversation c = StoredConversation.openReadOnly(conversation)) {
      List<CompactionRecord> journal = c.journal().entries();
      assertThat(journal.stream().map(CompactionRecord::trigger).toList())
          .containsSubsequence("auto", "auto", "manual");
      // Once per view: every reminder names a different view.
      List<Object> reminded = new ArrayList<>();
      for (Message m : c.master().messages()) {
        Object v = m.metadata().extra().get(AutoCompactor.REMINDER_KEY);
        if (v != null) {
          reminded.add(v);
        }
      }
      assertThat(reminded).isNotEmpty().doesNotHaveDuplicates();
      assertThat(c.settings().get(BudgetOptions.SETTING_KEY)).contains("3000");
    }
  }

  /** The screen after the last line that starts with {@code prompt}. */
  private static String after(String screen, String prompt) {
    int at = screen.lastIndexOf(prompt);
    assertThat(at).as("\"" + prompt + "\" on the screen").isNotNegative();
    return screen.substring(at);
  }

  private static JsonNode inspect(Path home, Path conversation) throws Exception {
    CliRunner r =
        CliRunner.runWithEnv(
            ChatProcess.env(home), "inspect", conversation.toString(), "--model", MODEL, "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  private static long number(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertThat(m.find()).as(regex + " in\n" + text).isTrue();
    return Long.parseLong(m.group(1).replace(",", ""));
  }

  private static void assertSameFigures(String context, JsonNode inspect) {
    JsonNode anchor = inspect.get("anchor");
    assertNumber(context, "context\\s+([\\d,]+) of", anchor.get("contextTokens").asLong());
    assertNumber(context, "of ([\\d,]+) tokens \\(", inspect.at("/budget/tokens").asLong());
    if (anchor.get("valid").asBoolean()) {
      assertNumber(context, "usage anchor at message (\\d+)", anchor.get("anchorIndex").asLong());
      assertNumber(context, "([\\d,]+) reported", anchor.get("reportedTokens").asLong());
      assertNumber(context, "([\\d,]+) estimated", anchor.get("estimatedTokens").asLong());
    } else {
      assertThat(context).contains("anchor      none (estimate): " + anchor.get("reason").asText());
    }
    assertNumber(context, "counted\\s+([\\d,]+) tokens", inspect.get("tokens").asLong());
    assertNumber(
        context,
        "counted\\s+[\\d,]+ tokens in ([\\d,]+) messages",
        inspect.get("messages").asLong() - inspect.get("uiOnlyMessages").asLong());
    for (Map.Entry<String, JsonNode> role : iterable(inspect.get("byRole"))) {
      String r = role.getKey();
      assertNumber(
          context, "\\b" + r + "\\s+([\\d,]+) messages", role.getValue().get("messages").asLong());
      assertNumber(
          context,
          "\\b" + r + "\\s+[\\d,]+ messages\\s+([\\d,]+) tokens",
          role.getValue().get("tokens").asLong());
    }
    assertNumber(context, "tools\\s+([\\d,]+) calls", inspect.get("toolCalls").asLong());
    assertNumber(context, "([\\d,]+) results", inspect.get("toolResults").asLong());
    assertNumber(context, "([\\d,]+) tool output tokens", inspect.get("toolOutputTokens").asLong());
    assertNumber(context, "budget\\s+([\\d,]+) \\(", inspect.at("/budget/tokens").asLong());
    assertNumber(context, "window ([\\d,]+)", inspect.at("/window/tokens").asLong());
    assertNumber(context, "max output ([\\d,]+)", inspect.get("maxOutput").asLong());
    assertThat(inspect.at("/budget/source").asText()).startsWith("context_budget persisted in");
  }

  /** The number {@code regex}'s first group finds in {@code text} is {@code expected}. */
  private static void assertNumber(String text, String regex, long expected) {
    assertThat(number(text, regex)).as(regex).isEqualTo(expected);
  }

  private static Iterable<Map.Entry<String, JsonNode>> iterable(JsonNode object) {
    return object::fields;
  }
}
