package dev.compactor.cli;

import dev.compactor.core.message.Message;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.wire.json.MessageCodec;
import java.io.BufferedWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code compactor sample}: writes a generated agent conversation, to try the other commands on.
 */
@Command(
    name = "sample",
    mixinStandardHelpOptions = true,
    description =
        "Writes a generated, realistic coding-agent conversation (tool calls, parallel calls,"
            + " large outputs, thinking) in Compactor's conversation.jsonl format. The same seed"
            + " always gives the same conversation.")
final class SampleCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--turns",
      defaultValue = "120",
      description = "Agent steps (default ${DEFAULT-VALUE}).")
  int turns;

  @Option(names = "--seed", defaultValue = "42", description = "Seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--out", paramLabel = "FILE", description = "Write here instead of stdout.")
  Path out;

  @Override
  public Integer call() throws Exception {
    if (turns < 0 || turns > 100_000) {
      throw new IllegalArgumentException("--turns " + turns + " must be between 0 and 100000");
    }
    List<Message> messages =
        ConversationGenerator.generate(seed, ConversationGenerator.Options.agentSession(turns));
    MessageCodec codec = new MessageCodec();
    if (out == null) {
      PrintWriter w = spec.commandLine().getOut();
      for (Message m : messages) {
        w.println(codec.writeLine(m));
      }
      w.flush();
    } else {
      if (out.getParent() != null) {
        Files.createDirectories(out.getParent());
      }
      try (Writer w = new BufferedWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
        for (Message m : messages) {
          w.write(codec.writeLine(m));
          w.write('\n');
        }
      }
      spec.commandLine().getErr().printf("wrote %d messages to %s%n", messages.size(), out);
    }
    return 0;
  }
}
