package dev.compactor.cli;

import dev.compactor.core.CompactorException;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.server.inspect.InspectorServer;
import dev.compactor.server.inspect.InspectorSource;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;

/**
 * {@code compactor inspect DIR --web}: the inspector page of one conversation directory, read in
 * place (read-only), on a loopback address until interrupted.
 */
final class InspectWeb {
  private InspectWeb() {}

  static int serve(
      CommandLine.Model.CommandSpec spec,
      CompactorCommand parent,
      Path dir,
      BudgetOptions budget,
      ConversationInput input,
      int port) {
    if (!Files.isDirectory(dir)) {
      throw new CompactorException(
          "--web serves a conversation directory; "
              + dir
              + " is a file (import it first with"
              + " `compactor compact FILE --out DIR` or inspect it without --web)");
    }
    if (port < 0 || port > 65_535) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--port " + port + " must be 0-65535");
    }
    Map<String, String> env = CompactorCommand.envOf(parent);
    String model = budget.model(input);
    ResolvedBudget b = budget.resolve(input, model, env, false);
    CountDownLatch stop = new CountDownLatch(1);
    boolean interrupted = false;
    try (StoredConversation c = StoredConversation.openReadOnly(dir);
        InspectorServer server =
            InspectorServer.start(
                "127.0.0.1",
                port,
                InspectorSource.ofDirectory(
                    c, model, b.tokens(), b.window(), TokenCounters.forModel(model)))) {
      PrintWriter out = spec.commandLine().getOut();
      out.println(server.conversationUrl());
      out.flush();
      Thread hook = new Thread(stop::countDown, "compactor-inspect-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        stop.await(); // until Ctrl-C (the hook) or this thread is interrupted
      } catch (InterruptedException e) {
        interrupted = true; // asked to stop: a normal end, once the server is closed
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the JVM is stopping: the hook runs
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }
}
