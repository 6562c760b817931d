package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.log.imports.Importers;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's library example, kept compiling and working. */
class ReadmeExampleTest {
  @TempDir Path dir;

  @Test
  void readmeLibraryExample_runs() throws Exception {
    Path session = dir.resolve("session.jsonl");
    assertThat(CliRunner.run("sample", "--turns", "20", "--out", session.toString()).exitCode())
        .isZero();
    assertThat(Files.size(session)).isPositive();

    // --- as in README.md ---
    var messages = Importers.read(session).single().messages();
    var conversation = new InMemoryConversation(new InMemoryMasterLog(messages));
    conversation.append(Message.user("Now run the tests."));
    var counter = TokenCounters.forModel("openai/gpt-4o");
    var measured =
        new ContextMeter(counter).measure(conversation.activeMessages(), "openai/gpt-4o");
    // ---

    assertThat(measured.tokens()).isEqualTo(counter.countMessages(conversation.activeMessages()));
    assertThat(new ViewValidator().validate(conversation.activeMessages())).isEmpty();
  }
}
