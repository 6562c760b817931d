package dev.compactor.replay;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One file's results: its figures per strategy, summed over its conversations.
 *
 * @param file the file as given
 * @param format the importer that read it
 * @param model the model of its (first) conversation
 * @param window the window it was replayed with
 * @param maxOutput output tokens reserved per call
 * @param budget the context budget
 * @param byStrategy figures per strategy name, in the run's strategy order
 * @param runs every conversation's run, by strategy name, in conversation order
 */
public record FileResult(
    String file,
    String format,
    String model,
    long window,
    int maxOutput,
    long budget,
    Map<String, Metrics> byStrategy,
    Map<String, List<StrategyRun>> runs) {
  public FileResult {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(format, "format");
    byStrategy = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(byStrategy));
    Map<String, List<StrategyRun>> r = new LinkedHashMap<>();
    runs.forEach((k, v) -> r.put(k, List.copyOf(v)));
    runs = java.util.Collections.unmodifiableMap(r);
  }

  /** Number of conversations in the file. */
  public int conversations() {
    return runs.values().stream().findFirst().map(List::size).orElse(0);
  }
}
