package dev.compactor.bench;

import dev.compactor.replay.FileResult;
import dev.compactor.replay.Metrics;
import dev.compactor.replay.ReplayOptions;
import dev.compactor.replay.ReplayReport;
import dev.compactor.replay.ReplayRunner;
import dev.compactor.replay.ReplayStrategies;
import dev.compactor.replay.ReplayStrategy;
import dev.compactor.replay.cost.CacheModel;
import dev.compactor.replay.report.ContextChart;
import dev.compactor.replay.report.ProgressBar;
import dev.compactor.replay.report.ReplayJson;
import dev.compactor.replay.report.ScoreTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The replay scorecard: every trajectory of the corpus replayed under every strategy, ours and the
 * peer's, side by side at a window that forces compaction; prints the tables (per corpus folder and
 * in total), checks the {@code auto} policy's targets, and writes {@code docs/scorecard.md} and
 * {@code docs/scorecard.json}.
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -cp compactor-bench/target/benchmarks.jar dev.compactor.bench.Scorecard
 * java -cp compactor-bench/target/benchmarks.jar dev.compactor.bench.Scorecard \
 *     ../shared/corpus/mini-swe-agent --peers --chart docs/scorecard-mini-swe-agent.png
 * </pre>
 *
 * <p>Defaults: the corpus {@code shared/corpus} found from the working directory upwards, window
 * 32,768, output 4,096 (budget 27,672), the strategies {@code none window mask trim summarize
 * auto}; {@code --peers} adds the masking peers of the table. See {@code docs/replay.md}
 * for the definitions.
 */
@Command(
    name = "scorecard",
    mixinStandardHelpOptions = true,
    description = "Replays the corpus under every strategy and writes the scorecard.")
public final class Scorecard implements Callable<Integer> {
  /** Where the corpus is looked for, from the working directory upwards. */
  public static final String DEFAULT_CORPUS = "shared/corpus";

  @Parameters(
      arity = "0..1",
      paramLabel = "CORPUS",
      description = "Corpus directory or file (default: shared/corpus, searched upwards).")
  Path corpus;

  @Option(names = "--window", description = "Context window (default 32,768).")
  long window = ReplayOptions.SCORECARD_WINDOW;

  @Option(names = "--max-output", description = "Reserved output (default 4,096).")
  int maxOutput = ReplayOptions.SCORECARD_MAX_OUTPUT;

  @Option(names = "--context-budget", description = "Budget (default: the default budget).")
  String contextBudget;

  @Option(names = "--peers", description = "Also replay the masking peers of the issue's table.")
  boolean peers;

  @Option(names = "--strategy", description = "Replay only these strategies (repeatable).")
  List<String> only;

  @Option(
      names = "--out",
      description = "Markdown report to write (default docs/scorecard.md; JSON beside it).")
  Path out = Path.of("docs", "scorecard.md");

  @Option(names = "--chart", description = "Also draw context per call (.png, .html or .svg).")
  Path chart;

  @Option(names = "--threads", description = "Worker threads (default: the number of cores).")
  int threads = Runtime.getRuntime().availableProcessors();

  /** Runs the scorecard; exit code 0, or 2 on an error. */
  public static void main(String[] args) {
    // LangChain4j brings slf4j-api without a provider; its "no providers" notice is noise here.
    System.setProperty("slf4j.internal.verbosity", "ERROR");
    CommandLine cl = new CommandLine(new Scorecard());
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          commandLine.getErr().println("scorecard: " + ex.getMessage());
          return 2;
        });
    System.exit(cl.execute(args));
  }

  @Override
  public Integer call() {
    Path root = corpus != null ? corpus : locate();
    List<Path> files = ReplayRunner.expand(List.of(root));
    ReplayStrategies registry = ReplayStrategies.global();
    List<ReplayStrategy> strategies = new ArrayList<>();
    List<String> names = new ArrayList<>(only != null ? only : ReplayStrategies.SCORECARD);
    if (peers) {
      names.addAll(List.of("peer-mask-every-turn", "peer-mask-to-70", "peer-mask-batched"));
    }
    for (String n : names) {
      strategies.add(registry.get(n));
    }
    ReplayOptions options =
        ReplayOptions.defaults()
            .withWindow(window)
            .withMaxOutput(maxOutput)
            .withContextBudget(contextBudget)
            .withThreads(threads);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    ReplayReport report = new ReplayRunner(options).run(files, strategies, new ProgressBar(err));
    Map<String, Map<String, Metrics>> groups = groups(root, report);
    String md = markdown(root, report, groups);
    PrintWriter stdout = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    stdout.print(md);
    stdout.flush();
    try {
      Path parent = out.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(out, md, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + out, e);
    }
    Path json = out.resolveSibling(stripExtension(out.getFileName().toString()) + ".json");
    ReplayJson.write(report, groups, json);
    stdout.println("wrote " + out + " and " + json);
    if (chart != null) {
      ContextChart.write(report, chart);
      stdout.println("wrote " + chart);
    }
    return 0;
  }

  /** Figures per corpus folder (the first directory below the corpus root), then in total. */
  static Map<String, Map<String, Metrics>> groups(Path root, ReplayReport report) {
    Map<String, Map<String, Metrics>> out = new LinkedHashMap<>();
    for (FileResult f : report.files()) {
      String group = group(root, Path.of(f.file()));
      Map<String, Metrics> g = out.computeIfAbsent(group, k -> new LinkedHashMap<>());
      f.byStrategy().forEach((s, m) -> g.merge(s, m, Metrics::plus));
    }
    if (out.size() > 1) {
      out.put("all", report.totals());
    }
    return out;
  }

  private static String group(Path root, Path file) {
    Path rel = Files.isDirectory(root) ? root.relativize(file) : file.getFileName();
    return rel.getNameCount() > 1
        ? rel.getName(0).toString()
        : Files.isDirectory(root) ? root.getFileName().toString() : rel.toString();
  }

  static String markdown(Path root, ReplayReport r, Map<String, Map<String, Metrics>> groups) {
    StringBuilder sb = new StringBuilder();
    FileResult first = r.files().get(0);
    sb.append("# Replay scorecard\n\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "Corpus `%s` (%d files, %,d conversations), window %,d, output %,d, budget %,d;"
                + " tokens counted with `%s`. %,d calls replayed in %.1f s on %d threads"
                + " (%s, Java %s, %d cores), %s.%n%n",
            root,
            r.files().size(),
            r.totals().values().stream().findFirst().map(Metrics::conversations).orElse(0L),
            first.window(),
            first.maxOutput(),
            first.budget(),
            r.options().counter().name(),
            r.replayedCalls(),
            r.wallTime().toMillis() / 1000.0,
            r.threads(),
            System.getProperty("os.name") + " " + System.getProperty("os.arch"),
            System.getProperty("java.version"),
            Runtime.getRuntime().availableProcessors(),
            LocalDate.now()));
    sb.append(
        "Costs include the calls' output and the summary calls (billed as model calls, uncached,"
            + " even when the offline summarizer made them); `× none` divides by the `none`"
            + " row. Definitions: `docs/replay.md`.\n\n");
    for (Map.Entry<String, Map<String, Metrics>> g : groups.entrySet()) {
      sb.append("## ").append(g.getKey()).append("\n\n");
      sb.append(ScoreTable.markdown(g.getValue())).append('\n');
      String checks = targets(g.getValue(), r, root, g.getKey());
      if (!checks.isEmpty()) {
        sb.append(checks).append('\n');
      }
    }
    return sb.toString();
  }

  /** The targets for {@code auto}, checked on one group; empty without auto or none. */
  static String targets(Map<String, Metrics> g, ReplayReport r, Path root, String group) {
    Metrics auto = g.get("auto");
    Metrics none = g.get("none");
    if (auto == null || none == null) {
      return "";
    }
    if (none.peakTokens() < r.files().get(0).budget()) {
      return "No call of `none` reaches the budget here: nothing to compact, no target to check.\n";
    }
    List<String> lines = new ArrayList<>();
    long badFiles = 0;
    for (FileResult f : r.files()) {
      if (group.equals("all") || group(root, Path.of(f.file())).equals(group)) {
        Metrics m = f.byStrategy().get("auto");
        if (m != null && (m.invalidViews() > 0 || m.overWindowCalls() > 0)) {
          badFiles++;
        }
      }
    }
    lines.add(
        check(
            badFiles == 0,
            String.format(
                Locale.ROOT,
                "no invalid view and no over-window call on any file (%d file(s) with some)",
                badFiles)));
    lines.add(
        check(
            auto.recall() >= 0.99,
            String.format(Locale.ROOT, "recall %.4f ≥ 0.99", auto.recall())));
    Metrics window = g.get("window");
    if (window != null) {
      double lost = 1 - auto.recall();
      double half = (1 - window.recall()) / 2;
      lines.add(
          check(
              lost <= half,
              String.format(
                  Locale.ROOT, "1 − recall %.4f ≤ ½ (1 − recall(window)) = %.4f", lost, half)));
    }
    for (CacheModel c : CacheModel.values()) {
      double ratio = auto.costUsd(c) / none.costUsd(c);
      lines.add(
          check(
              ratio <= 0.95,
              String.format(
                  Locale.ROOT, "cost with %s caching %.3f × none ≤ 0.95", c.wireName(), ratio)));
    }
    double input = (double) auto.inputTokens() / none.inputTokens();
    lines.add(check(input <= 0.8, String.format(Locale.ROOT, "input %.3f × none ≤ 0.8", input)));
    if (group.equals("all") || r.files().size() == 1) {
      double s = r.wallTime().toMillis() / 1000.0;
      lines.add(check(s < 120, String.format(Locale.ROOT, "whole run %.1f s < 120 s", s)));
    }
    return "Targets for `auto`:\n\n" + String.join("\n", lines) + "\n";
  }

  private static String check(boolean ok, String what) {
    return "- " + (ok ? "met" : "**missed**") + ": " + what;
  }

  static Path locate() {
    return Corpus.upwards(
        DEFAULT_CORPUS, Files::isDirectory, "corpus", "pass its directory as the first argument");
  }

  private static String stripExtension(String name) {
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }
}
