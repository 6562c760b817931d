package dev.compactor.replay;

import dev.compactor.core.policy.CostPlanner;
import dev.compactor.replay.report.ScoreTable;
import dev.compactor.replay.strategy.AutoStrategy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A diagnostic, not a test: replays files under registered strategies and ad-hoc variants of {@code
 * auto} and prints the score table. A variant is {@code plan:FROM:MARGIN:KEEP[:TAIL]}: the cost
 * planner masking from FROM × budget, paying MARGIN times over, keeping KEEP outputs; TAIL the
 * summary tail share (default 1: the policy's own cap).
 *
 * <pre>
 * java -cp ... dev.compactor.replay.VariantRun --strategy none --strategy plan:0.3:2:3 DIR...
 * </pre>
 */
public final class VariantRun {
  private VariantRun() {}

  public static void main(String[] args) {
    List<ReplayStrategy> strategies = new ArrayList<>();
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--strategy")) {
        strategies.add(strategy(args[++i]));
      } else {
        files.add(Path.of(args[i]));
      }
    }
    ReplayReport report =
        new ReplayRunner(ReplayOptions.scorecard().withThreads(2))
            .run(ReplayRunner.expand(files), strategies, (d, t, c, s) -> {});
    System.out.println(ScoreTable.text(report.totals()));
    System.out.printf("wall %.1f s%n", report.wallTime().toMillis() / 1000.0);
  }

  static ReplayStrategy strategy(String spec) {
    if (!spec.startsWith("plan:")) {
      return ReplayStrategies.global().get(spec);
    }
    String[] p = spec.split(":");
    CostPlanner planner =
        CostPlanner.DEFAULTS.with(
            Double.parseDouble(p[1]), Double.parseDouble(p[2]), Integer.parseInt(p[3]));
    double tail = p.length > 4 ? Double.parseDouble(p[4]) : 1.0;
    Map<String, Object> options = new LinkedHashMap<>();
    if (p.length > 5) {
      options.put("names", Integer.parseInt(p[5]));
    }
    if (p.length > 6) {
      options.put("mentions", Integer.parseInt(p[6]));
    }
    if (p.length > 7) {
      options.put("index", Integer.parseInt(p[7]));
    }
    return new AutoStrategy(spec, AutoStrategy.SETTINGS, tail, planner, options);
  }
}
