package dev.compactor.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The process's CPU time by group of threads, from Linux's {@code /proc/self/task}: every thread
 * the JVM runs, Java's and its own (garbage collectors, JIT compilers), by the name the kernel
 * knows (at most 15 characters) with its digits folded ({@code GC Thread#1} → {@code GC Thread#}),
 * so that one can see who spends a run's CPU. Clock ticks of 10 ms: meaningful over many calls.
 * Empty where there is no {@code /proc}.
 */
final class ThreadGroupsCpu {
  private static final Path TASKS = Path.of("/proc/self/task");
  private static final double MS_PER_TICK = 10.0; // USER_HZ is 100 on Linux

  /** Thread id → [group, ticks] of the last snapshot, so threads that ended keep counting. */
  private final Map<String, Object[]> seen = new HashMap<>();

  /** Ticks by group now, for every thread seen so far (ended ones at their last reading). */
  Map<String, Long> snapshot() {
    if (!Files.isDirectory(TASKS)) {
      return Map.of();
    }
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path t : tasks) {
        try {
          String stat = Files.readString(t.resolve("stat"), StandardCharsets.US_ASCII);
          int close = stat.lastIndexOf(')');
          String name = stat.substring(stat.indexOf('(') + 1, close);
          String[] f = stat.substring(close + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
          seen.put(t.getFileName().toString(), new Object[] {group(name), ticks});
        } catch (IOException | RuntimeException e) {
          // the thread ended while it was read
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    Map<String, Long> out = new HashMap<>();
    for (Object[] v : seen.values()) {
      out.merge((String) v[0], (Long) v[1], Long::sum);
    }
    return out;
  }

  /** Milliseconds per call by group between two snapshots, largest first, at most {@code top}. */
  static Map<String, Double> perCall(
      Map<String, Long> before, Map<String, Long> after, long calls, int top) {
    Map<String, Double> ms = new HashMap<>();
    after.forEach(
        (g, t) -> {
          long d = t - before.getOrDefault(g, 0L);
          if (d > 0) {
            ms.put(g, d * MS_PER_TICK / Math.max(1, calls));
          }
        });
    Map<String, Double> sorted = new LinkedHashMap<>();
    ms.entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .limit(top)
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return sorted;
  }

  private static String group(String name) {
    return name.replaceAll("[0-9]+", "#");
  }
}
