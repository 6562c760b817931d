package dev.compactor.cli;

import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.replay.Metrics;
import dev.compactor.replay.ProgressListener;
import dev.compactor.replay.ReplayOptions;
import dev.compactor.replay.ReplayReport;
import dev.compactor.replay.ReplayRunner;
import dev.compactor.replay.ReplayStrategies;
import dev.compactor.replay.cost.CacheModel;
import dev.compactor.replay.report.ContextChart;
import dev.compactor.replay.report.ScoreTable;
import dev.compactor.wire.json.MessageCodec;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code compactor demo}: an agent session played turn by turn through the default policy, with
 * nothing configured (no key, no server), then the same session replayed with and without
 * compaction and priced with prompt caching.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Plays a generated coding-agent session (the one `compactor sample` writes) turn by turn"
          + " through the default policy: a line per model call (context size against the"
          + " budget), a block at each compaction, then the totals: tokens sent and cost with"
          + " prompt caching with and without compaction, whether every original is recoverable,"
          + " and a chart. No API key, no server; offline summaries."
    })
final class DemoCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--turns",
      defaultValue = "150",
      description = "Agent steps (default ${DEFAULT-VALUE}).")
  int turns;

  @Option(names = "--seed", defaultValue = "42", description = "Seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--window",
      defaultValue = "" + ReplayOptions.SCORECARD_WINDOW,
      description = "The model's context window in tokens (default ${DEFAULT-VALUE}).")
  long window;

  @Option(
      names = "--chart",
      paramLabel = "FILE",
      description =
          "Where to write the chart (.svg, .html or .png; default compactor-demo.svg in the"
              + " system's temporary directory).")
  Path chart;

  private static final String MODEL = ReplayOptions.DEFAULT_MODEL;
  private static final int MAX_OUTPUT = ReplayOptions.SCORECARD_MAX_OUTPUT;

  @Override
  public Integer call() throws IOException {
    if (turns < 10 || turns > 2000) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--turns " + turns + " must be between 10 and 2000");
    }
    if (window < 8192 || window > 2_000_000) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--window " + window + " must be between 8192 and 2000000 tokens");
    }
    Path chartFile =
        chart != null ? chart : Path.of(System.getProperty("java.io.tmpdir"), "compactor-demo.svg");
    if (chartFile.toAbsolutePath().getParent() != null
        && !Files.isDirectory(chartFile.toAbsolutePath().getParent())) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--chart " + chart + ": its directory does not exist");
    }
    PrintWriter out = spec.commandLine().getOut();
    List<Message> session =
        ConversationGenerator.generate(seed, ConversationGenerator.Options.agentSession(turns));
    Compactor compactor =
        Compactor.forModel(MODEL)
            .contextWindow(window)
            .maxOutputTokens(MAX_OUTPUT)
            .listener(c -> printCompaction(out, c))
            .build();
    long budget = compactor.budget().tokens();
    out.printf(
        Locale.ROOT,
        "A generated agent session: %,d messages, %d agent steps, model %s, window %,d, budget"
            + " %,d tokens (%s).%n%n",
        session.size(),
        turns,
        MODEL,
        window,
        budget,
        compactor.budget().source());
    Compactor.Session live = compactor.session();
    int calls = 0;
    for (Message m : session) {
      if (m.role() == Role.ASSISTANT) {
        calls++;
        long tokens = live.tokens();
        out.printf(
            Locale.ROOT,
            "call %4d  %s %,7d / %,d tokens%n",
            calls,
            bar(tokens, budget),
            tokens,
            budget);
        out.flush();
      }
      live.append(m);
      if (m.role() == Role.ASSISTANT || m.role() == Role.TOOL) {
        CompactionOutcome o = live.afterTurn();
        if (o instanceof CompactionOutcome.Reminded r) {
          out.printf(
              Locale.ROOT,
              "           reminder at %d %% of the budget: save durable state before compaction%n",
              Math.round(100.0 * r.tokens() / r.budget()));
        }
      }
    }
    out.println();
    out.println(recoverability(live.conversation()));
    out.println();
    totals(out, session, chartFile);
    out.flush();
    return 0;
  }

  private void printCompaction(PrintWriter out, AppliedCompaction c) {
    out.printf(
        Locale.ROOT,
        "  ┌ compaction: %s (%s), %,d → %,d tokens (%.0f %% saved), %d → %d messages in the view%n",
        c.strategy(),
        c.trigger().name().toLowerCase(Locale.ROOT),
        c.tokensBefore(),
        c.tokensAfter(),
        100 * c.savedFraction(),
        c.messagesBefore(),
        c.messagesAfter());
    for (String l : c.limitations()) {
      out.println("  │ " + l);
    }
    out.printf(Locale.ROOT, "  └ view %s%n", c.viewId());
    out.flush();
  }

  /** What the final view rewrote, and whether each original is recoverable from it. */
  private static String recoverability(Conversation c) {
    int rewritten = 0;
    Set<Object> covered = new HashSet<>();
    boolean exact = true;
    for (ViewEntry e : c.activeView().entries()) {
      if (e instanceof ViewEntry.Synthesized s) {
        rewritten++;
        covered.addAll(s.covers());
        List<Message> back = c.recover(s.message().id());
        for (int i = 0; i < s.covers().size(); i++) {
          Message original = c.master().get(s.covers().get(i)).orElse(null);
          exact &= original != null && i < back.size() && back.get(i).equals(original);
        }
      }
    }
    return String.format(
        Locale.ROOT,
        "The final view holds %d rewritten entries (masked outputs, stubs, truncated results,"
            + " checkpoints) covering %d of the %d original messages; %s.",
        rewritten,
        covered.size(),
        c.master().size(),
        exact
            ? "every one of them is recoverable exactly from the master log"
            : "SOME ORIGINALS COULD NOT BE RECOVERED");
  }

  /** The same session replayed with no compaction and with the default policy, priced. */
  private void totals(PrintWriter out, List<Message> session, Path chartFile) throws IOException {
    Path dir = Files.createTempDirectory("compactor-demo");
    Path file = dir.resolve("demo-session.conversation.jsonl");
    try {
      MessageCodec codec = new MessageCodec();
      try (Writer w = new BufferedWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
        for (Message m : session) {
          w.write(codec.writeLine(m));
          w.write('\n');
        }
      }
      ReplayOptions options =
          ReplayOptions.defaults().withWindow(window).withMaxOutput(MAX_OUTPUT).withModel(MODEL);
      ReplayStrategies registry = ReplayStrategies.global();
      ReplayReport report =
          new ReplayRunner(options)
              .run(
                  List.of(file),
                  List.of(registry.get("none"), registry.get("auto")),
                  ProgressListener.NONE);
      Map<String, Metrics> totals = report.totals();
      out.println("The same session replayed call by call, without and with compaction:");
      out.print(ScoreTable.text(totals));
      Metrics none = totals.get("none");
      Metrics auto = totals.get("auto");
      if (none != null && auto != null) {
        for (CacheModel cache : CacheModel.values()) {
          double a = auto.costUsd(cache);
          double n = none.costUsd(cache);
          out.printf(
              Locale.ROOT,
              "cost with %s prompt caching: %.4f USD compacted against %.4f USD uncompacted (%.2f×)%n",
              cache.wireName(),
              a,
              n,
              n == 0 ? 0 : a / n);
        }
      }
      ContextChart.write(report, chartFile);
      out.println("chart: " + chartFile.toAbsolutePath());
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(dir);
    }
  }

  private static String bar(long tokens, long budget) {
    int width = 30;
    int filled = (int) Math.min(width, Math.round((double) width * tokens / Math.max(1, budget)));
    return "█".repeat(filled) + "░".repeat(width - filled);
  }
}
