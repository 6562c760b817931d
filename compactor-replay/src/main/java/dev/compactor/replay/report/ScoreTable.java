package dev.compactor.replay.report;

import dev.compactor.replay.Metrics;
import dev.compactor.replay.cost.CacheModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The scorecard table: one row per strategy, as aligned text for a terminal or as a Markdown table.
 * Costs and input tokens are also shown relative to the baseline strategy ({@code none}) when it is
 * in the table.
 *
 * <p>Columns: calls; input tokens (and × baseline); peak tokens; over-window calls; compactions;
 * summary calls and their input + output tokens; cost in USD under OpenAI-style and Anthropic-style
 * caching (and × baseline); invalid views; needed-fact recall (recalled / needed); compaction time.
 */
public final class ScoreTable {
  /** The baseline strategy that relative figures divide by. */
  public static final String BASELINE = "none";

  private ScoreTable() {}

  /** Aligned text, one strategy a row. */
  public static String text(Map<String, Metrics> byStrategy) {
    List<String[]> rows = rows(byStrategy);
    int[] width = new int[HEADERS.length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < rows.size(); k++) {
      String[] r = rows.get(k);
      for (int i = 0; i < r.length; i++) {
        if (i > 0) {
          sb.append("  ");
        }
        String pad = " ".repeat(width[i] - r[i].length());
        sb.append(i == 0 ? r[i] + pad : pad + r[i]);
      }
      sb.append('\n');
      if (k == 0) {
        int total = 0;
        for (int w : width) {
          total += w;
        }
        sb.append("-".repeat(total + 2 * (width.length - 1))).append('\n');
      }
    }
    return sb.toString();
  }

  /** A Markdown table. */
  public static String markdown(Map<String, Metrics> byStrategy) {
    List<String[]> rows = rows(byStrategy);
    StringBuilder sb = new StringBuilder();
    for (int k = 0; k < rows.size(); k++) {
      sb.append("| ").append(String.join(" | ", rows.get(k))).append(" |\n");
      if (k == 0) {
        sb.append("|---");
        for (int i = 1; i < HEADERS.length; i++) {
          sb.append("|---:");
        }
        sb.append("|\n");
      }
    }
    return sb.toString();
  }

  private static final String[] HEADERS = {
    "strategy",
    "calls",
    "input tokens",
    "× none",
    "peak",
    "over window",
    "compactions",
    "summaries (tokens)",
    "cost OpenAI $",
    "× none",
    "cost Anthropic $",
    "× none",
    "invalid",
    "recall",
    "compaction s"
  };

  private static List<String[]> rows(Map<String, Metrics> byStrategy) {
    Metrics base = byStrategy.get(BASELINE);
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADERS);
    BiFunction<Double, Double, String> rel =
        (v, b) -> b == null || b == 0 ? "" : String.format(Locale.ROOT, "%.2f", v / b);
    for (Map.Entry<String, Metrics> e : byStrategy.entrySet()) {
      Metrics m = e.getValue();
      rows.add(
          new String[] {
            e.getKey(),
            String.format(Locale.ROOT, "%,d", m.calls()),
            String.format(Locale.ROOT, "%,d", m.inputTokens()),
            rel.apply((double) m.inputTokens(), base == null ? null : (double) base.inputTokens()),
            String.format(Locale.ROOT, "%,d", m.peakTokens()),
            String.format(Locale.ROOT, "%,d", m.overWindowCalls()),
            String.format(Locale.ROOT, "%,d", m.compactions()),
            String.format(
                Locale.ROOT,
                "%,d (%,d)",
                m.summaryCalls(),
                m.summaryInputTokens() + m.summaryOutputTokens()),
            String.format(Locale.ROOT, "%,.2f", m.costUsd(CacheModel.OPENAI)),
            rel.apply(
                m.costUsd(CacheModel.OPENAI),
                base == null ? null : base.costUsd(CacheModel.OPENAI)),
            String.format(Locale.ROOT, "%,.2f", m.costUsd(CacheModel.ANTHROPIC)),
            rel.apply(
                m.costUsd(CacheModel.ANTHROPIC),
                base == null ? null : base.costUsd(CacheModel.ANTHROPIC)),
            String.format(Locale.ROOT, "%,d", m.invalidViews()),
            String.format(Locale.ROOT, "%.4f", m.recall()),
            String.format(Locale.ROOT, "%.1f", m.compactionNanos() / 1e9)
          });
    }
    return rows;
  }
}
