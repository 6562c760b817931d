package dev.compactor.replay.report;

import com.fasterxml.jackson.annotation.JsonInclude;
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

  /** The whole document: the run, the strategies' totals, the groups, the files. */
  public record Document(
      Run run,
      List<String> strategies,
      Map<String, StrategyFigures> totals,
      @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Map<String, StrategyFigures>> groups,
      List<FileFigures> files,
      @JsonInclude(JsonInclude.Include.NON_NULL) ProxyFigures throughProxy,
      @JsonInclude(JsonInclude.Include.NON_NULL) ProxyFigures throughProxyAnthropic) {
    /**
     * This document with the figures of the replay through a compacting proxy, by the client's
     * request shape (either may be null).
     */
    public Document withProxies(ProxyFigures chatCompletions, ProxyFigures anthropic) {
      return new Document(run, strategies, totals, groups, files, chatCompletions, anthropic);
    }
  }

  /** The run's settings. */
  public record Run(
      Long window,
      Integer maxOutput,
      String contextBudget,
      String model,
      String counter,
      int threads,
      double wallSeconds,
      long replayedCalls) {}

  /** One file's figures per strategy, and its first failures (null when none). */
  public record FileFigures(
      String file,
      String format,
      int conversations,
      String model,
      long window,
      int maxOutput,
      long budget,
      Map<String, StrategyFigures> strategies,
      @JsonInclude(JsonInclude.Include.NON_NULL) List<String> failures) {}

  /**
   * One strategy's figures: every {@link Metrics} field, the costs by cache model (USD, 4
   * decimals), and {@code relativeToNone} (null when {@code none} was not replayed).
   */
  public record StrategyFigures(
      long conversations,
      long calls,
      long inputTokens,
      long peakTokens,
      long overWindowCalls,
      long compactions,
      long reminders,
      long failures,
      long summaryCalls,
      long summaryInputTokens,
      long summaryOutputTokens,
      long cachedTokens,
      long outputTokens,
      Map<String, Double> costUsd,
      Map<String, Double> inputCostUsd,
      double outputCostUsd,
      double summaryCostUsd,
      long invalidViews,
      long neededFacts,
      long recalledFacts,
      double recall,
      long recallCalls,
      long recallTokens,
      long recoveredFacts,
      long plannedCompactions,
      long predictedSavingTokens,
      long realisedSavingTokens,
      long compactionMillis,
      @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Double> relativeToNone) {}

  /**
   * What the upstream of a replay through a compacting proxy received: the calls, the upstream
   * requests and those refused (invalid, over the window), the requests passed through, the cache
   * reads counted from the requests' bytes, the requests per {@code x-compactor-action} and the
   * refusals' reasons.
   */
  public record ProxyFigures(
      long calls,
      long upstreamRequests,
      long refusedInvalid,
      long refusedOverWindow,
      long passthroughs,
      long byteCachedTokens,
      Map<String, Long> actions,
      List<String> refusals) {}

  /** The report as one document; {@code groups} may be empty (then left out). */
  public static Document document(ReplayReport report, Map<String, Map<String, Metrics>> groups) {
    Run run =
        new Run(
            report.options().window(),
            report.options().maxOutput(),
            report.options().contextBudget(),
            report.options().model(),
            report.options().counter().name(),
            report.threads(),
            report.wallTime().toMillis() / 1000.0,
            report.replayedCalls());
    Map<String, Map<String, StrategyFigures>> g = null;
    if (!groups.isEmpty()) {
      g = new LinkedHashMap<>();
      for (Map.Entry<String, Map<String, Metrics>> e : groups.entrySet()) {
        g.put(e.getKey(), strategies(e.getValue()));
      }
    }
    List<FileFigures> files = new ArrayList<>();
    for (FileResult f : report.files()) {
      List<String> failures = new ArrayList<>();
      for (List<StrategyRun> runs : f.runs().values()) {
        for (StrategyRun r : runs) {
          for (String x : r.failures()) {
            failures.add(r.conversation() + ": " + x);
          }
        }
      }
      files.add(
          new FileFigures(
              f.file(),
              f.format(),
              f.conversations(),
              f.model(),
              f.window(),
              f.maxOutput(),
              f.budget(),
              strategies(f.byStrategy()),
              failures.isEmpty()
                  ? null
                  : List.copyOf(failures.subList(0, Math.min(10, failures.size())))));
    }
    return new Document(
        run, report.strategies(), strategies(report.totals()), g, files, null, null);
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
      JSON.writeValue(file.toFile(), document(report, groups));
    } catch (IOException e) {
      throw new CompactorException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** The report as JSON text. */
  public static String toJson(ReplayReport report, Map<String, Map<String, Metrics>> groups) {
    try {
      return JSON.writeValueAsString(document(report, groups));
    } catch (IOException e) {
      throw new CompactorException("cannot render the report as JSON: " + e.getMessage(), e);
    }
  }

  private static Map<String, StrategyFigures> strategies(Map<String, Metrics> byStrategy) {
    Metrics base = byStrategy.get(ScoreTable.BASELINE);
    Map<String, StrategyFigures> out = new LinkedHashMap<>();
    byStrategy.forEach((name, m) -> out.put(name, metrics(m, base)));
    return out;
  }

  static StrategyFigures metrics(Metrics m, Metrics base) {
    Map<String, Double> cost = new LinkedHashMap<>();
    Map<String, Double> inputCost = new LinkedHashMap<>();
    for (CacheModel c : CacheModel.values()) {
      cost.put(c.wireName(), round(m.costUsd(c)));
      inputCost.put(c.wireName(), round(m.inputCostUsd(c)));
    }
    Map<String, Double> rel = null;
    if (base != null && base.inputTokens() > 0) {
      rel = new LinkedHashMap<>();
      rel.put("inputTokens", ratio(m.inputTokens(), base.inputTokens()));
      for (CacheModel c : CacheModel.values()) {
        rel.put("cost_" + c.wireName(), ratio(m.costUsd(c), base.costUsd(c)));
        rel.put("inputCost_" + c.wireName(), ratio(m.inputCostUsd(c), base.inputCostUsd(c)));
      }
    }
    return new StrategyFigures(
        m.conversations(),
        m.calls(),
        m.inputTokens(),
        m.peakTokens(),
        m.overWindowCalls(),
        m.compactions(),
        m.reminders(),
        m.failures(),
        m.summaryCalls(),
        m.summaryInputTokens(),
        m.summaryOutputTokens(),
        m.cachedTokens(),
        m.outputTokens(),
        cost,
        inputCost,
        round(m.outputCost()),
        round(m.summaryCost()),
        m.invalidViews(),
        m.neededFacts(),
        m.recalledFacts(),
        m.recall(),
        m.recallCalls(),
        m.recallTokens(),
        m.recoveredFacts(),
        m.plannedCompactions(),
        Math.round(m.predictedSaving()),
        Math.round(m.realisedSaving()),
        Math.round(m.compactionMillis()),
        rel);
  }

  private static double ratio(double a, double b) {
    return b == 0 ? 0 : Math.round(a / b * 10_000) / 10_000.0;
  }

  private static double round(double usd) {
    return Math.round(usd * 10_000) / 10_000.0;
  }
}
