package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compactor chat} in a script: a separate process whose standard streams are pipes. Lines
 * are read one by one, answers and command output go to stdout, status lines to stderr, and nothing
 * carries an escape sequence; the conversation is then resumed by name with the server it was
 * talking to.
 */
class ChatPipeTest {
  private static final Duration WAIT = Duration.ofSeconds(90);

  @Test
  void pipe_readsLineByLine_answersOnStdout_statusOnStderr_thenResumes(@TempDir Path dir)
      throws Exception {
    Path home = Files.createDirectories(dir.resolve("home"));
    Path work = Files.createDirectories(dir.resolve("work"));
    try (FakeModelServer fake = FakeChat.start()) {
      try (ChatProcess p =
          ChatProcess.pipe(
              home,
              work,
              "--name",
              "piped",
              "--model",
              "openai/gpt-4o",
              "--base-url",
              fake.baseUrl(),
              "--context-budget",
              "20000")) {
        p.type("question 1");
        p.type("/context");
        p.type("question 2");
        p.closeInput();
        assertThat(p.exitCode(WAIT)).as(p.errors()).isZero();
        String out = p.screen();
        assertThat(p.raw()).doesNotContain("\u001B");
        assertThat(p.errors()).doesNotContain("\u001B");
        assertThat(out)
            .contains(FakeChat.answer(1))
            .contains(FakeChat.answer(2))
            .contains("context     ")
            .doesNotContain("[context ");
        assertThat(out.indexOf(FakeChat.answer(1)))
            .isLessThan(out.indexOf("context     "))
            .isLessThan(out.indexOf(FakeChat.answer(2)));
        assertThat(p.errors())
            .contains("[compactor chat: conversation piped (new), model openai/gpt-4o")
            .contains("budget 20,000 tokens (--context-budget)")
            .contains("[context ");
      }
      List<RecordedRequest> first = FakeChat.chats(fake);
      assertThat(first).hasSize(2);
      assertThat(first.get(0).streaming()).isTrue();
      assertThat(first.get(1).texts())
          .containsExactly(
              "user: question 1", "assistant: " + FakeChat.answer(1), "user: question 2");

      try (ChatProcess q = ChatProcess.pipe(home, work, "--resume", "piped")) {
        q.type("question 3");
        q.closeInput();
        assertThat(q.exitCode(WAIT)).as(q.errors()).isZero();
        assertThat(q.screen()).contains(FakeChat.answer(3));
        assertThat(q.errors())
            .contains("conversation piped (resumed), model openai/gpt-4o")
            .contains("budget 20,000 tokens (context_budget persisted in");
      }
      List<RecordedRequest> all = FakeChat.chats(fake);
      assertThat(all).as("the resumed chat talks to the same server").hasSize(3);
      assertThat(all.get(2).texts())
          .containsExactly(
              "user: question 1",
              "assistant: " + FakeChat.answer(1),
              "user: question 2",
              "assistant: " + FakeChat.answer(2),
              "user: question 3");
      assertThat(fake.rejections()).isEmpty();
    }
    CliRunner list = CliRunner.runWithEnv(ChatProcess.env(home), "chat", "--list");
    assertThat(list.exitCode()).isZero();
    assertThat(list.out())
        .contains("1 conversation(s) in " + home.resolve("data/compactor/conversations"))
        .containsPattern("piped\\s+\\S+ \\S+\\s+6\\s+0\\s+openai/gpt-4o\\s+question 1");
  }
}
