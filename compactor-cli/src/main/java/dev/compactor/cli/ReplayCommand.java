package dev.compactor.cli;

import dev.compactor.core.CompactorException;
import dev.compactor.replay.FileResult;
import dev.compactor.replay.Metrics;
import dev.compactor.replay.ProgressListener;
import dev.compactor.replay.ReplayOptions;
import dev.compactor.replay.ReplayReport;
import dev.compactor.replay.ReplayRunner;
import dev.compactor.replay.ReplayStrategies;
import dev.compactor.replay.ReplayStrategy;
import dev.compactor.replay.cost.ScorecardPrices;
import dev.compactor.replay.report.ContextChart;
import dev.compactor.replay.report.ProgressBar;
import dev.compactor.replay.report.ReplayJson;
import dev.compactor.replay.report.ScoreTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code compactor replay}: replays recorded conversations as agent loops under several strategies
 * side by side and prints the scorecard table (see {@code docs/replay.md}).
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
      "Replays recorded conversations as agent loops: before each recorded assistant message a"
          + " model call sends the strategy's view; after each turn the strategy runs as it would"
          + " live. Prints, per strategy: calls, input and peak tokens, calls over the window,"
          + " compactions, summary calls, cost with prompt caching (OpenAI- and Anthropic-style),"
          + " invalid views, needed-fact recall and compaction time.",
      "FILE is a transcript in any supported format, or a directory (its files, recursively)."
    })
final class ReplayCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "FILE", description = "Transcripts or directories.")
  List<Path> files;

  @Option(
      names = "--window",
      paramLabel = "N",
      description = "Context window in tokens (default: each conversation's model's).")
  Long window;

  @Option(
      names = "--max-output",
      paramLabel = "N",
      description = "Output tokens reserved per call (default: the model's maximum output).")
  Integer maxOutput;

  @Option(
      names = "--context-budget",
      paramLabel = "B",
      description =
          "Budget compaction keeps the view under: a fraction of the window (0.8) or tokens"
              + " (20000). Default min(0.9 × window, window − max output − 1000, 256000).")
  String contextBudget;

  @Option(
      names = "--model",
      paramLabel = "M",
      description =
          "Model the calls go to (window, output, prices). Default: the model each conversation"
              + " names, else "
              + ReplayOptions.DEFAULT_MODEL
              + ".")
  String model;

  @Option(
      names = "--strategy",
      paramLabel = "S",
      split = ",",
      description =
          "A strategy to replay; repeat (or separate by commas) for several, side by side."
              + " Default: every available one"
              + " of none, window, mask, trim, summarize, auto.")
  List<String> strategies;

  @Option(names = "--json", paramLabel = "OUT", description = "Also write the results as JSON.")
  Path json;

  @Option(
      names = "--chart",
      paramLabel = "OUT",
      description = "Draw context size per call for each strategy: OUT.png, OUT.html or OUT.svg.")
  Path chart;

  @Option(
      names = "--prices",
      paramLabel = "FILE",
      description = "Price table (format of the built-in prices.tsv).")
  Path prices;

  @Option(
      names = "--threads",
      paramLabel = "N",
      description = "Conversations replayed in parallel (default: the number of cores).")
  Integer threads;

  @Option(names = "--per-file", description = "Also print a table for each file.")
  boolean perFile;

  @Option(
      names = "--quiet",
      description = "No progress bar (there is none either when the console is not a terminal).")
  boolean quiet;

  @Option(
      names = "--through-proxy",
      description =
          "Replay through the compacting proxy: each call goes over HTTP, with the whole history,"
              + " to a real proxy (temporary SQLite store) in front of a fake provider that answers"
              + " as recorded, and is measured on what the provider received (strategy \"proxy\"),"
              + " next to the same calls sent direct (\"none\").")
  boolean throughProxy;

  @Option(
      names = "--proxy-api",
      paramLabel = "API",
      split = ",",
      description =
          "With --through-proxy: the request shape of the replay's client, openai (Chat"
              + " Completions, the default; strategy \"proxy\") or anthropic (Messages with"
              + " cache_control markers as Claude Code sends them; strategy \"proxy-anthropic\");"
              + " several, comma-separated or repeated, run side by side.")
  List<String> proxyApis;

  @Override
  public Integer call() {
    ReplayStrategies registry = ReplayStrategies.global();
    List<ReplayStrategy> chosen = new ArrayList<>();
    if (throughProxy) {
      chosen.add(registry.get(ScoreTable.BASELINE));
      for (String n : strategies == null ? List.<String>of() : strategies) {
        if (chosen.stream().noneMatch(s -> s.name().equals(n.trim()))) {
          chosen.add(registry.get(n.trim()));
        }
      }
    } else if (strategies == null || strategies.isEmpty()) {
      for (String n : ReplayStrategies.SCORECARD) {
        if (registry.contains(n)) {
          chosen.add(registry.get(n));
        }
      }
    } else {
      for (String n : strategies) {
        if (chosen.stream().noneMatch(s -> s.name().equals(n))) {
          chosen.add(registry.get(n.trim()));
        }
      }
    }
    if (chart != null) {
      String n = chart.getFileName().toString().toLowerCase(Locale.ROOT);
      if (!(n.endsWith(".png") || n.endsWith(".html") || n.endsWith(".svg"))) {
        throw new CompactorException("--chart " + chart + " must end in .png, .html or .svg");
      }
    }
    if (json != null) {
      checkOutput(json, "--json");
    }
    if (chart != null) {
      checkOutput(chart, "--chart");
    }
    ReplayOptions options = ReplayOptions.defaults();
    try {
      options =
          options
              .withWindow(window)
              .withMaxOutput(maxOutput)
              .withContextBudget(contextBudget)
              .withModel(ModelNames.check(model, "--model"));
      if (threads != null) {
        options = options.withThreads(threads);
      }
    } catch (IllegalArgumentException e) {
      throw new CompactorException(e.getMessage(), e);
    }
    if (prices != null) {
      options = options.withPrices(ScorecardPrices.read(prices));
    }
    List<Path> inputs = expand(files);
    PrintWriter err = spec.commandLine().getErr();
    // The bar redraws its line with escape sequences: only for a terminal, not a log or a pipe.
    ProgressListener progress =
        quiet || System.console() == null ? ProgressListener.NONE : new ProgressBar(err);
    List<ProxyReplay.Api> apis = new ArrayList<>();
    if (proxyApis != null && !proxyApis.isEmpty()) {
      if (!throughProxy) {
        throw new CompactorException("--proxy-api needs --through-proxy");
      }
      for (String a : proxyApis) {
        ProxyReplay.Api api;
        try {
          api = ProxyReplay.Api.of(a, "--proxy-api");
        } catch (IllegalArgumentException e) {
          throw new CompactorException(e.getMessage(), e);
        }
        if (!apis.contains(api)) {
          apis.add(api);
        }
      }
    } else if (throughProxy) {
      apis.add(ProxyReplay.Api.OPENAI);
    }
    List<ProxyReplay> proxies = new ArrayList<>();
    ReplayReport report;
    try {
      for (ProxyReplay.Api api : apis) {
        ProxyReplay proxy = ProxyReplay.start(window == null ? 0 : window, options.counter(), api);
        proxies.add(proxy);
        chosen.add(proxy);
      }
      report = new ReplayRunner(options).run(inputs, chosen, progress);
    } finally {
      for (ProxyReplay proxy : proxies) {
        proxy.close();
      }
    }
    if (report.files().isEmpty() && !report.skipped().isEmpty()) {
      throw new CompactorException(
          "no file could be read:\n  " + String.join("\n  ", report.skipped().values()));
    }
    PrintWriter out = spec.commandLine().getOut();
    if (perFile && report.files().size() > 1) {
      for (FileResult f : report.files()) {
        out.println(describe(f));
        out.println(ScoreTable.text(f.byStrategy()));
      }
      out.println("All files:");
    } else if (report.files().size() == 1) {
      out.println(describe(report.files().get(0)));
    }
    out.print(ScoreTable.text(report.totals()));
    out.printf(
        Locale.ROOT,
        "%d file(s), %,d conversation(s), %,d calls replayed in %.1f s on %d thread(s).%n",
        report.files().size(),
        report.totals().values().stream().findFirst().map(Metrics::conversations).orElse(0L),
        report.replayedCalls(),
        report.wallTime().toMillis() / 1000.0,
        report.threads());
    for (ProxyReplay proxy : proxies) {
      if (proxies.size() > 1) {
        out.println(proxy.name() + ":");
      }
      out.print(proxySummary(proxy.tally(), report.totals().get(proxy.name())));
    }
    if (json != null) {
      if (proxies.isEmpty()) {
        ReplayJson.write(report, Map.of(), json);
      } else {
        writeJson(ReplayJson.document(report, Map.of()), proxies, json);
      }
      out.println("JSON: " + json);
    }
    if (chart != null) {
      ContextChart.write(report, chart);
      out.println("chart: " + chart);
    }
    if (!report.skipped().isEmpty()) {
      out.printf(
          Locale.ROOT,
          "%d of %d file(s) could not be read and were skipped:%n",
          report.skipped().size(),
          report.skipped().size() + report.files().size());
      report.skipped().forEach((f, why) -> out.println("  " + why.replace("\n", "\n    ")));
    }
    out.flush();
    return report.skipped().isEmpty() ? 0 : 1;
  }

  /** What the fake provider received through the proxy, below the table. */
  static String proxySummary(ProxyReplay.Tally t, Metrics proxied) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "through the proxy: %,d upstream requests for %,d calls; refused by the provider: %,d"
                + " over its window, %,d invalid; %,d passed through unread%n",
            t.upstreamRequests(),
            t.calls.get(),
            t.refusedOverWindow(),
            t.refusedInvalid(),
            t.passthroughs()));
    sb.append("proxy actions: ");
    List<String> parts = new ArrayList<>();
    t.actions().forEach((a, n) -> parts.add(String.format(Locale.ROOT, "%s %,d", a, n)));
    sb.append(String.join(", ", parts)).append('\n');
    sb.append(
        String.format(
            Locale.ROOT,
            "cache reads from the requests' bytes: %,d tokens (the replay's message-wise prefix:"
                + " %,d)%n",
            t.byteCachedTokens(),
            proxied == null ? 0 : proxied.cachedTokens()));
    synchronized (t.refusals) {
      for (String r : t.refusals) {
        sb.append("  refused: ").append(r).append('\n');
      }
    }
    return sb.toString();
  }

  /**
   * The report with each proxy's figures: {@code throughProxy} for the Chat Completions client,
   * {@code throughProxyAnthropic} for the Anthropic one.
   */
  private static void writeJson(ReplayJson.Document report, List<ProxyReplay> proxies, Path file) {
    ReplayJson.ProxyFigures chat = null;
    ReplayJson.ProxyFigures anthropic = null;
    for (ProxyReplay p : proxies) {
      if (p.api() == ProxyReplay.Api.OPENAI) {
        chat = p.tally().figures();
      } else {
        anthropic = p.tally().figures();
      }
    }
    ReplayJson.Document all = report.withProxies(chat, anthropic);
    try {
      Files.writeString(
          file,
          new com.fasterxml.jackson.databind.ObjectMapper()
              .writerWithDefaultPrettyPrinter()
              .writeValueAsString(all));
    } catch (IOException e) {
      throw new CompactorException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Refuses an output path whose directory does not exist (it is never created silently) or that is
   * a directory.
   */
  private static void checkOutput(Path p, String option) {
    Path abs = p.toAbsolutePath();
    Path parent = abs.getParent();
    if (Files.isDirectory(abs)) {
      throw new CompactorException(option + " " + p + " is a directory; give a file name");
    }
    if (parent != null && !Files.isDirectory(parent)) {
      throw new CompactorException(
          option + " " + p + ": the directory " + parent + " does not exist (create it first)");
    }
  }

  private static String describe(FileResult f) {
    return String.format(
        Locale.ROOT,
        "%s (%s, %d conversation(s), %s): window %,d, output %,d, budget %,d",
        f.file(),
        f.format(),
        f.conversations(),
        f.model(),
        f.window(),
        f.maxOutput(),
        f.budget());
  }

  /** Files as given; a directory stands for its regular files (recursively, sorted, no .md). */
  static List<Path> expand(List<Path> given) {
    return ReplayRunner.expand(given);
  }
}
