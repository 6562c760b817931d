package dev.compactor.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the whole JMH suite — token counting, measuring the context, the per-turn trigger check,
 * cold and warm compaction of the gptme-2000 workload, importing the corpus — and prints one
 * summary table, with the aims where it has them.
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -cp compactor-bench/target/benchmarks.jar dev.compactor.bench.BenchSuite [--quick]
 *     [--corpus FILE] [--out FILE.md] [--quiet]
 * </pre>
 *
 * {@code --quick}: 1 s iterations (2 warm-up, 3 measured) instead of 2 s (3 warm-up, 5 measured).
 * {@code --corpus}: the gptme-2000 file when it is not at {@code shared/corpus/synthetic/} in or
 * above the working directory. {@code --out}: also write the table (Markdown) to a file, keeping
 * what the file has from its first {@code ## } heading on (sections measured by hand). {@code
 * --quiet}: no JMH progress output.
 */
public final class BenchSuite {
  private BenchSuite() {}

  static final List<String> BENCHMARKS =
      List.of(
          "TokenCountingBenchmark",
          "ContextMeasureBenchmark",
          "TriggerCheckBenchmark",
          "CompactionBenchmark",
          "ImportBenchmark");

  /** gptme's engine on the same workload (corpus README), for the aims. */
  static final double GPTME_COMPACT_MS = 2450;

  public static void main(String[] args) throws RunnerException, IOException {
    boolean quick = false;
    boolean quiet = false;
    String corpus = null;
    Path out = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> quick = true;
        case "--quiet" -> quiet = true;
        case "--corpus" -> corpus = BenchSupport.value(args, ++i);
        case "--out" -> out = Path.of(BenchSupport.value(args, ++i));
        case "-h", "--help" -> {
          System.out.println(
              "usage: BenchSuite [--quick] [--corpus gptme-2000.conversation.jsonl.gz]"
                  + " [--out FILE.md] [--quiet]");
          return;
        }
        default ->
            throw new IllegalArgumentException("unknown argument \"" + args[i] + "\" (see --help)");
      }
    }
    Path located = Corpus.locate(corpus); // fails early, naming what was tried
    ChainedOptionsBuilder o =
        new OptionsBuilder()
            .include("dev\\.compactor\\.bench\\.(" + String.join("|", BENCHMARKS) + ")\\.")
            .forks(1)
            .warmupIterations(quick ? 2 : 3)
            .measurementIterations(quick ? 3 : 5)
            .warmupTime(TimeValue.seconds(quick ? 1 : 2))
            .measurementTime(TimeValue.seconds(quick ? 1 : 2))
            .param("corpus", located.toAbsolutePath().toString())
            .verbosity(quiet ? VerboseMode.SILENT : VerboseMode.NORMAL);
    Collection<RunResult> results = new Runner(o.build()).run();
    String table = table(results);
    System.out.println();
    System.out.println(table);
    if (out != null) {
      // Sections under their own "## " heading (figures measured outside JMH) are kept.
      String kept = "";
      if (Files.isRegularFile(out)) {
        String before = Files.readString(out);
        int section = before.indexOf("\n## ");
        kept = section < 0 ? "" : "\n" + before.substring(section + 1);
      }
      Files.writeString(out, table + kept);
      System.out.println("written to " + out);
    }
  }

  /** The results as a Markdown table, one row per benchmark and parameter set. */
  static String table(Collection<RunResult> results) {
    List<RunResult> sorted = new ArrayList<>(results);
    sorted.sort(Comparator.comparing(r -> label(r)));
    StringBuilder sb = new StringBuilder();
    sb.append("| benchmark | parameters | score ± 99.9 % error | unit | aim |\n");
    sb.append("|---|---|---|---|---|\n");
    for (RunResult r : sorted) {
      var p = r.getPrimaryResult();
      sb.append("| ")
          .append(shortName(r.getParams().getBenchmark()))
          .append(" | ")
          .append(params(r))
          .append(" | ")
          .append(String.format(Locale.ROOT, "%.3f ± %.3f", p.getScore(), p.getScoreError()))
          .append(" | ")
          .append(p.getScoreUnit())
          .append(" | ")
          .append(aim(shortName(r.getParams().getBenchmark()), params(r), p.getScore()))
          .append(" |\n");
    }
    return sb.toString();
  }

  private static String label(RunResult r) {
    return shortName(r.getParams().getBenchmark()) + " " + params(r);
  }

  private static String shortName(String benchmark) {
    String[] parts = benchmark.split("\\.");
    return parts.length >= 2 ? parts[parts.length - 2] + "." + parts[parts.length - 1] : benchmark;
  }

  private static String params(RunResult r) {
    List<String> kv = new ArrayList<>();
    for (String k : r.getParams().getParamsKeys()) {
      if (!k.equals("corpus")) {
        kv.add(k + "=" + r.getParams().getParam(k));
      }
    }
    return String.join(", ", kv);
  }

  /** The aim of a row and whether the score meets it; empty when the row has none. */
  static String aim(String benchmark, String params, double score) {
    if (benchmark.equals("CompactionBenchmark.cold") && params.equals("strategy=trim")) {
      double limit = GPTME_COMPACT_MS / 20;
      return verdict(score <= limit, String.format(Locale.ROOT, "≤ %.1f ms (20× gptme)", limit));
    }
    if (benchmark.equals("CompactionBenchmark.warm") && params.equals("strategy=trim")) {
      return verdict(score < 10, "< 10 ms");
    }
    if (benchmark.equals("TriggerCheckBenchmark.afterTurn")) {
      return verdict(score < 100, "< 100 µs");
    }
    return "";
  }

  private static String verdict(boolean met, String aim) {
    return aim + (met ? ": met" : ": missed");
  }
}
