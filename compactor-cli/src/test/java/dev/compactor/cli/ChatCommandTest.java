package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.log.store.CompactionRecord;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code compactor chat} in-process, its lines given as its input (plain line mode), against the
 * fake provider on 127.0.0.1: overflow recovery, the commands and what they refuse, and the errors
 * of starting a chat.
 */
class ChatCommandTest {
  @TempDir Path home;
  private FakeModelServer fake;
  private Map<String, String> env;

  @BeforeEach
  void start() {
    fake = FakeChat.start();
    env = ChatProcess.env(home);
  }

  @AfterEach
  void stop() {
    assertThat(fake.rejections().stream().filter(r -> !r.rejection().contains("context")))
        .as("requests a provider would refuse (other than for their size)")
        .isEmpty();
    fake.close();
  }

  private Path dir(String name) {
    return home.resolve("data/compactor/conversations").resolve(name);
  }

  /** Runs {@code compactor chat ARGS} with {@code lines} as its input. */
  private CliRunner chat(List<String> lines, String... args) {
    CommandLine cl = Main.newCommandLine(env);
    ChatCommand chat = cl.getSubcommands().get("chat").getCommand();
    chat.stdin =
        new ByteArrayInputStream(
            (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 1];
    all[0] = "chat";
    System.arraycopy(args, 0, all, 1, args.length);
    int code = cl.execute(all);
    return new CliRunner(code, out.toString(), err.toString());
  }

  private String[] fakeModel(String name, String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of("--name", name, "--model", "openai/gpt-4o", "--base-url", fake.baseUrl()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  @Test
  void providerStillRefusing_overflowRecoveryShrinksTheView_andTheAnswerArrives() {
    fake.contextWindow(
        1500); // far below the budget: the policy never compacts, the provider refuses
    List<String> lines = new java.util.ArrayList<>();
    for (int i = 1; i <= 8; i++) {
      lines.add("question " + i);
    }
    CliRunner r = chat(lines, fakeModel("overflow", "--context-budget", "50000"));
    assertThat(r.exitCode()).as(r.err()).isZero();
    for (int i = 1; i <= 8; i++) {
      assertThat(r.out()).contains(FakeChat.answer(i));
    }
    assertThat(r.err())
        .contains("[the provider refused the context as too long; recovered after")
        .doesNotContain("compacted automatically");
    assertThat(fake.rejections()).isNotEmpty();
    try (StoredConversation c = StoredConversation.openReadOnly(dir("overflow"))) {
      assertThat(c.journal().entries().stream().map(CompactionRecord::trigger))
          .isNotEmpty()
          .allMatch("overflow"::equals);
      // Nothing is lost: the master log holds every question and answer.
      List<String> texts = c.master().messages().stream().map(Message::content).toList();
      for (int i = 1; i <= 8; i++) {
        assertThat(texts).contains("question " + i, FakeChat.answer(i));
      }
    }
    // What was sent after a recovery fits the window.
    RecordedRequest last = FakeChat.chats(fake).get(FakeChat.chats(fake).size() - 1);
    assertThat(fake.estimatePromptTokens(last.json())).isLessThanOrEqualTo(1500);
  }

  @Test
  void compactCommands_deprecatedAliasesWarn_badStrategiesAreNamed_unknownCommandsToo() {
    CliRunner r =
        chat(
            List.of(
                "question 1",
                "/compact auto",
                "/compact resume",
                "/compact bogus",
                "/compact trim now",
                "/frobnicate",
                "/help",
                "question 2"),
            fakeModel("commands"));
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.err())
        .contains("[warning: /compact auto is deprecated; use /compact trim]")
        .contains("[warning: /compact resume is deprecated; use /compact summarize]")
        .contains("unknown /compact strategy \"bogus\"")
        .contains("/compact trim takes no instructions (got \"now\")")
        .contains("[unknown command /frobnicate; /help lists the commands]")
        .contains("[no compaction needed: ");
    assertThat(r.out()).contains("/compact summarize [TEXT]").contains(FakeChat.answer(2));
  }

  @Test
  void budget_isPersisted_andABadValueIsNamed_andNotStored() throws Exception {
    CliRunner r =
        chat(
            List.of("/budget 0", "/budget lots", "/budget", "/budget 0.5", "question 1"),
            fakeModel("budget", "--context-budget", "20000"));
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.err()).contains("\"0\"").contains("\"lots\"");
    assertThat(r.out())
        .contains("budget 20,000 tokens (--context-budget)")
        .contains("budget 64,000 tokens (--context-budget); window 128,000")
        .contains("kept for conversation budget");
    assertThat(Files.readString(dir("budget").resolve("settings.json")))
        .contains("\"context_budget\":\"0.5\"");
    // The next run without --context-budget uses the persisted one.
    CliRunner again = chat(List.of("/budget"), "--resume", "budget");
    assertThat(again.out()).contains("budget 64,000 tokens (context_budget persisted in");
  }

  @Test
  void model_switchesTheClient_andIsKeptForResume_aBadNameKeepsTheOldOne() {
    CliRunner r =
        chat(
            List.of("question 1", "/model nonsense", "/model openai/gpt-4o-mini", "question 2"),
            fakeModel("switch"));
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.err()).contains("\"nonsense\"").contains("/model");
    assertThat(r.out()).contains("model openai/gpt-4o-mini; budget");
    List<RecordedRequest> chats = FakeChat.chats(fake);
    assertThat(chats.stream().map(RecordedRequest::model).toList())
        .containsExactly("gpt-4o", "gpt-4o-mini");
    CliRunner resumed = chat(List.of("question 3"), "--resume", "switch");
    assertThat(resumed.err()).contains("conversation switch (resumed), model openai/gpt-4o-mini");
    assertThat(FakeChat.chats(fake).get(2).model()).isEqualTo("gpt-4o-mini");
  }

  @Test
  void aFailedModelCall_isReported_theMessageKept_theChatGoesOn_exitOne() {
    fake.enqueue(Reply.error(Reply.Error.INVALID_REQUEST, "something is off"));
    CliRunner r = chat(List.of("question 1", "question 2"), fakeModel("failing"));
    assertThat(r.exitCode()).isEqualTo(ChatCommand.EXIT_TURN_FAILED);
    assertThat(r.err()).contains("[model call failed: ").contains("Your message is kept");
    assertThat(r.out()).doesNotContain(FakeChat.answer(1)).contains(FakeChat.answer(2));
    try (StoredConversation c = StoredConversation.openReadOnly(dir("failing"))) {
      assertThat(c.master().messages().stream().map(Message::role).toList())
          .containsExactly(Role.USER, Role.USER, Role.ASSISTANT);
    }
  }

  @Test
  void startErrors_nameWhatIsWrong_andLeaveNothingBehind() {
    CliRunner missing = chat(List.of(), "--resume", "nope");
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("no conversation named \"nope\"").contains("--list");

    CliRunner badName = chat(List.of(), "--name", "../escape");
    assertThat(badName.exitCode()).isEqualTo(2);
    assertThat(badName.err()).contains("\"../escape\"").contains("--name");

    CliRunner both = chat(List.of(), "--name", "a", "--resume", "b");
    assertThat(both.exitCode()).isEqualTo(2);

    Map<String, String> noKey = new java.util.HashMap<>(env);
    env = noKey;
    CliRunner key = chat(List.of("hello"), "--name", "keyless", "--model", "openai/gpt-4o");
    assertThat(key.exitCode()).isEqualTo(2);
    assertThat(key.err())
        .contains("no API key for openai/gpt-4o: set OPENAI_API_KEY")
        .contains("--base-url");
    assertThat(dir("keyless")).doesNotExist();

    CliRunner nothingSaid = chat(List.of("/exit"), fakeModel("silent"));
    assertThat(nothingSaid.exitCode()).isZero();
    assertThat(dir("silent")).as("a chat where nothing was said is not kept").doesNotExist();

    chat(List.of("question 1"), fakeModel("taken"));
    CliRunner taken = chat(List.of("question 2"), fakeModel("taken"));
    assertThat(taken.exitCode()).isEqualTo(2);
    assertThat(taken.err()).contains("already exists").contains("--resume taken");
    assertThat(fake.requests()).hasSize(1);

    try (StoredConversation open = StoredConversation.open(dir("taken"))) {
      CliRunner busy = chat(List.of("question 3"), "--resume", "taken");
      assertThat(busy.exitCode()).isEqualTo(2);
      assertThat(busy.err()).contains("conversation \"taken\" is open in another compactor chat");
      assertThat(open.master().size()).as("nothing written to it").isEqualTo(2);
    }
    assertThat(fake.requests()).hasSize(1);
  }

  @Test
  void list_withNoConversations_saysWhereTheyWouldBe() {
    CliRunner r = chat(List.of(), "--list");
    assertThat(r.exitCode()).isZero();
    assertThat(r.out())
        .contains("no conversations in " + home.resolve("data/compactor/conversations"));
  }
}
