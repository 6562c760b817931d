package dev.compactor.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One mode's measurements in a side-by-side benchmark of calls: each call's latency in nanoseconds,
 * the wall time the calls took, the process's CPU time meanwhile and the calls that failed.
 */
class CallSample {
  final String mode;
  long[] nanos = new long[0];
  long wallNanos;
  long cpuNanos;
  long errors;

  CallSample(String mode) {
    this.mode = mode;
  }

  /** Adds the calls of another round. */
  void add(long[] more, long wall, long cpu, long failed) {
    nanos = concat(nanos, more);
    wallNanos += wall;
    cpuNanos += cpu;
    errors += failed;
  }

  double perSecond() {
    return nanos.length / (wallNanos / 1e9);
  }

  /** CPU time of the whole process per call, in ms. */
  double cpuMsPerCall() {
    return cpuNanos / 1e6 / Math.max(1, nanos.length);
  }

  /** The {@code p}-th percentile of the latencies, in ms; NaN without calls. */
  double ms(double p) {
    return percentileMs(nanos, p);
  }

  static double percentileMs(long[] nanos, double p) {
    if (nanos.length == 0) {
      return Double.NaN;
    }
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  static long[] concat(long[] a, long[] b) {
    long[] all = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  /** How a table says whether a figure met its aim. */
  static String verdict(boolean met) {
    return met ? "met" : "missed";
  }

  /**
   * The head of a Markdown table of samples and its rule: mode, calls, calls/s, p50, p90 and p99
   * ms, then the {@code extra} columns, CPU ms/call and failed.
   */
  static String tableHead(String... extra) {
    List<String> columns =
        new ArrayList<>(List.of("mode", "calls", "calls/s", "p50 ms", "p90 ms", "p99 ms"));
    columns.addAll(List.of(extra));
    columns.addAll(List.of("CPU ms/call", "failed"));
    return "| " + String.join(" | ", columns) + " |\n" + "|---".repeat(columns.size()) + "|\n";
  }

  /** This sample's row of a {@link #tableHead} table, {@code extra} (ms) in the extra columns. */
  String tableRow(double... extra) {
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| %s | %d | %.1f | %.2f | %.2f | %.2f |",
                mode,
                nanos.length,
                perSecond(),
                ms(50),
                ms(90),
                ms(99)));
    for (double e : extra) {
      sb.append(String.format(Locale.ROOT, " %.2f |", e));
    }
    return sb.append(String.format(Locale.ROOT, " %.2f | %d |%n", cpuMsPerCall(), errors))
        .toString();
  }

  /**
   * The row of a {@link #tableHead} table that says what {@code measured} adds to {@code base},
   * with the aims: calls/s at least 90 % of the base's, p50 at most 2 ms and p99 at most 10 ms
   * more.
   *
   * @param label the row's first cell
   * @param baseName the base as the calls/s cell names it ({@code "direct"})
   * @param extra the cells of the extra columns
   */
  static String addedRow(
      String label, String baseName, CallSample base, CallSample measured, String... extra) {
    double p50 = measured.ms(50) - base.ms(50);
    double p99 = measured.ms(99) - base.ms(99);
    double share = 100 * measured.perSecond() / base.perSecond();
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "| %s | | %.1f %% of %s (aim ≥ 90 %%: %s) | %+.2f (aim ≤ 2: %s) | %+.2f | %+.2f"
                    + " (aim ≤ 10: %s) |",
                label,
                share,
                baseName,
                verdict(share >= 90),
                p50,
                verdict(p50 <= 2),
                measured.ms(90) - base.ms(90),
                p99,
                verdict(p99 <= 10)));
    for (String e : extra) {
      sb.append(' ').append(e).append(" |");
    }
    return sb.append(
            String.format(
                Locale.ROOT, " %+.2f | |%n", measured.cpuMsPerCall() - base.cpuMsPerCall()))
        .toString();
  }
}
