package dev.compactor.replay.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.compactor.core.CompactorException;
import dev.compactor.replay.FileResult;
import dev.compactor.replay.Metrics;
import dev.compactor.replay.ReplayReport;
import dev.compactor.replay.StrategyRun;
import dev.compactor.replay.cost.CacheModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable form of a {@link ReplayReport}: one JSON object with the run's settings, the
 * totals per strategy, optional named groups (e.g. per corpus folder), and every file's figures per
 * strategy. Each strategy's figures hold every {@link Metrics} field plus {@code recall}, {@code
 * costUsd} ({@code openai}, {@code anthropic}), {@code inputCostUsd} (the same without the calls'
 * output) and, when {@code none} was replayed, {@code relativeToNone} (input tokens and both costs
 * divided by {@code none}'s).
 */
public final class ReplayJson {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ReplayJson() {}

  /** The report as a JSON tree of maps and lists; {@code groups} may be empty. */
  public static Map<String, Object> toMap(
      ReplayReport report, Map<String, Map<String, Metrics>> groups) {
    Map<String, Object> out = new LinkedHashMap<>();
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("window", report.options().window());
    run.put("maxOutput", report.options().maxOutput());
    run.put("contextBudget", report.options().contextBudget());
    run.put("model", report.options().model());
    run.put("counter", report.options().counter().name());
    run.put("threads", report.threads());
    run.put("wallSeconds", report.wallTime().toMillis() / 1000.0);
    run.put("replayedCalls", report.replayedCalls());
    out.put("run", run);
    out.put("strategies", report.strategies());
    out.put("totals", strategies(report.totals()));
    if (!groups.isEmpty()) {
      Map<String, Object> g = new LinkedHashMap<>();
      groups.forEach((k, v) -> g.put(k, strategies(v)));
      out.put("groups", g);
    }
    List<Object> files = new ArrayList<>();
    for (FileResult f : report.files()) {
      Map<String, Object> fm = new LinkedHashMap<>();
      fm.put("file", f.file());
      fm.put("format", f.format());
      fm.put("conversations", f.conversations());
      fm.put("model", f.model());
      fm.put("window", f.window());
      fm.put("maxOutput", f.maxOutput());
      fm.put("budget", f.budget());
      fm.put("strategies", strategies(f.byStrategy()));
      List<String> failures = new ArrayList<>();
      for (List<StrategyRun> runs : f.runs().values()) {
        for (StrategyRun r : runs) {
          for (String x : r.failures()) {
            failures.add(r.conversation() + ": " + x);
          }
        }
      }
      if (!failures.isEmpty()) {
        fm.put("failures", failures.subList(0, Math.min(10, failures.size())));
      }
      files.add(fm);
    }
    out.put("files", files);
    return out;
  }

  /**
   * Writes the report to {@code file}.
   *
   * @throws CompactorException naming the file when it cannot be written
   */
  public static void write(
      ReplayReport report, Map<String, Map<String, Metrics>> groups, Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      JSON.writeValue(file.toFile(), toMap(report, groups));
    } catch (IOException e) {
      throw new CompactorException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** The report as JSON text. */
  public static String toJson(ReplayReport report, Map<String, Map<String, Metrics>> groups) {
    try {
      return JSON.writeValueAsString(toMap(report, groups));
    } catch (IOException e) {
      throw new CompactorException("cannot render the report as JSON: " + e.getMessage(), e);
    }
  }

  private static Map<String, Object> strategies(Map<String, Metrics> byStrategy) {
    Metrics base = byStrategy.get(ScoreTable.BASELINE);
    Map<String, Object> out = new LinkedHashMap<>();
    byStrategy.forEach((name, m) -> out.put(name, metrics(m, base)));
    return out;
  }

  static Map<String, Object> metrics(Metrics m, Metrics base) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("conversations", m.conversations());
    o.put("calls", m.calls());
    o.put("inputTokens", m.inputTokens());
    o.put("peakTokens", m.peakTokens());
    o.put("overWindowCalls", m.overWindowCalls());
    o.put("compactions", m.compactions());
    o.put("reminders", m.reminders());
    o.put("failures", m.failures());
    o.put("summaryCalls", m.summaryCalls());
    o.put("summaryInputTokens", m.summaryInputTokens());
    o.put("summaryOutputTokens", m.summaryOutputTokens());
    o.put("cachedTokens", m.cachedTokens());
    o.put("outputTokens", m.outputTokens());
    Map<String, Object> cost = new LinkedHashMap<>();
    Map<String, Object> inputCost = new LinkedHashMap<>();
    for (CacheModel c : CacheModel.values()) {
      cost.put(c.wireName(), round(m.costUsd(c)));
      inputCost.put(c.wireName(), round(m.inputCostUsd(c)));
    }
    o.put("costUsd", cost);
    o.put("inputCostUsd", inputCost);
    o.put("outputCostUsd", round(m.outputCost()));
    o.put("summaryCostUsd", round(m.summaryCost()));
    o.put("invalidViews", m.invalidViews());
    o.put("neededFacts", m.neededFacts());
    o.put("recalledFacts", m.recalledFacts());
    o.put("recall", m.recall());
    o.put("recallCalls", m.recallCalls());
    o.put("recallTokens", m.recallTokens());
    o.put("recoveredFacts", m.recoveredFacts());
    o.put("compactionMillis", Math.round(m.compactionMillis()));
    if (base != null && base.inputTokens() > 0) {
      Map<String, Object> rel = new LinkedHashMap<>();
      rel.put("inputTokens", ratio(m.inputTokens(), base.inputTokens()));
      for (CacheModel c : CacheModel.values()) {
        rel.put("cost_" + c.wireName(), ratio(m.costUsd(c), base.costUsd(c)));
        rel.put("inputCost_" + c.wireName(), ratio(m.inputCostUsd(c), base.inputCostUsd(c)));
      }
      o.put("relativeToNone", rel);
    }
    return o;
  }

  private static double ratio(double a, double b) {
    return b == 0 ? 0 : Math.round(a / b * 10_000) / 10_000.0;
  }

  private static double round(double usd) {
    return Math.round(usd * 10_000) / 10_000.0;
  }
}
