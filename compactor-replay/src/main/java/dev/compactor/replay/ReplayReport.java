package dev.compactor.replay;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The results of a replay run: per file and in total, per strategy.
 *
 * @param strategies the strategies' names, in the order they were asked for
 * @param files per file, in the order given
 * @param totals per strategy, summed over all files
 * @param options what the run was configured with
 * @param wallTime how long the whole run took (reading, replaying every strategy)
 * @param threads worker threads used
 * @param skipped the files that could not be read (file → why), left out of {@code files} and the
 *     totals
 */
public record ReplayReport(
    List<String> strategies,
    List<FileResult> files,
    Map<String, Metrics> totals,
    ReplayOptions options,
    Duration wallTime,
    int threads,
    Map<String, String> skipped) {
  public ReplayReport {
    skipped =
        skipped == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
    strategies = List.copyOf(strategies);
    files = List.copyOf(files);
    totals = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(totals));
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(wallTime, "wallTime");
  }

  /** A report in which every file could be read. */
  public ReplayReport(
      List<String> strategies,
      List<FileResult> files,
      Map<String, Metrics> totals,
      ReplayOptions options,
      Duration wallTime,
      int threads) {
    this(strategies, files, totals, options, wallTime, threads, Map.of());
  }

  /** Total model calls replayed, over all strategies. */
  public long replayedCalls() {
    return totals.values().stream().mapToLong(Metrics::calls).sum();
  }
}
