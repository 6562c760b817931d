package dev.compactor.replay.report;

import dev.compactor.core.CompactorException;
import dev.compactor.replay.FileResult;
import dev.compactor.replay.ReplayReport;
import dev.compactor.replay.StrategyRun;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * Draws the context size of every call for each strategy: x is the call (all conversations of all
 * files one after the other, in order, with a faint line where a file starts), y the input tokens
 * sent; the budget and the window (less the reserved output) are dashed lines. Values far above the
 * window are clipped at the top (the legend says how high they went).
 *
 * <p>{@code .html} (and {@code .svg}) get an inline SVG; {@code .png} a raster drawn with java.awt
 * in headless mode. Stateless.
 */
public final class ContextChart {
  private static final int W = 1200;
  private static final int H = 560;
  private static final int LEFT = 80;
  private static final int RIGHT = 20;
  private static final int TOP = 40;
  private static final int BOTTOM = 60;

  private static final String[] PALETTE = {
    "#7f7f7f", "#d62728", "#1f77b4", "#ff7f0e", "#9467bd", "#2ca02c", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22"
  };

  private ContextChart() {}

  /**
   * Writes the chart; the format follows the extension ({@code .png}, {@code .html}, {@code .svg}).
   *
   * @throws CompactorException for another extension, or when the file cannot be written
   */
  public static void write(ReplayReport report, Path file) {
    String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
    Data d = Data.of(report);
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      if (name.endsWith(".png")) {
        System.setProperty("java.awt.headless", "true");
        ImageIO.write(png(d), "png", file.toFile());
      } else if (name.endsWith(".html") || name.endsWith(".htm")) {
        Files.writeString(file, html(d), StandardCharsets.UTF_8);
      } else if (name.endsWith(".svg")) {
        Files.writeString(file, svg(d), StandardCharsets.UTF_8);
      } else {
        throw new CompactorException("chart file " + file + " must end in .png, .html or .svg");
      }
    } catch (IOException e) {
      throw new CompactorException("cannot write chart " + file + ": " + e.getMessage(), e);
    }
  }

  /** The series and scales of a chart. */
  static final class Data {
    final Map<String, long[]> series = new LinkedHashMap<>();
    final List<Integer> fileStarts = new ArrayList<>();
    final List<String> fileNames = new ArrayList<>();
    long budget;
    long windowLessOutput;
    long max;
    long yMax;
    int calls;

    static Data of(ReplayReport r) {
      Data d = new Data();
      for (String s : r.strategies()) {
        List<Long> all = new ArrayList<>();
        for (FileResult f : r.files()) {
          for (StrategyRun run : f.runs().get(s)) {
            for (long v : run.inputPerCall()) {
              all.add(v);
            }
          }
        }
        d.series.put(s, all.stream().mapToLong(Long::longValue).toArray());
        d.calls = Math.max(d.calls, all.size());
      }
      int at = 0;
      for (FileResult f : r.files()) {
        d.fileStarts.add(at);
        d.fileNames.add(Path.of(f.file()).getFileName().toString());
        List<StrategyRun> runs = f.runs().get(r.strategies().get(0));
        for (StrategyRun run : runs) {
          at += run.inputPerCall().length;
        }
      }
      if (!r.files().isEmpty()) {
        FileResult f = r.files().get(0);
        d.budget = f.budget();
        d.windowLessOutput = f.window() - f.maxOutput();
      }
      for (long[] s : d.series.values()) {
        for (long v : s) {
          d.max = Math.max(d.max, v);
        }
      }
      long cap = d.windowLessOutput > 0 ? 3 * (d.windowLessOutput + 0) : d.max;
      d.yMax = Math.max(1, niceCeil(Math.min(d.max, Math.max(cap, d.budget))));
      return d;
    }

    double x(int call) {
      int n = Math.max(1, calls - 1);
      return LEFT + (W - LEFT - RIGHT) * (double) call / n;
    }

    double y(long tokens) {
      long v = Math.min(tokens, yMax);
      return TOP + (H - TOP - BOTTOM) * (1 - (double) v / yMax);
    }

    String title() {
      return String.format(
          Locale.ROOT,
          "Context sent per call — %,d calls; budget %,d, window − output %,d tokens%s",
          calls,
          budget,
          windowLessOutput,
          max > yMax ? String.format(Locale.ROOT, "; clipped at %,d (max %,d)", yMax, max) : "");
    }
  }

  /** Horizontal space of one legend entry: up to 150 pixels, less when there are many. */
  private static int legendStep(Data d) {
    return Math.min(150, (W - LEFT - RIGHT - 10) / Math.max(1, d.series.size()));
  }

  private static long niceCeil(long v) {
    if (v <= 0) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * p >= v) {
        return (long) (m * p);
      }
    }
    return (long) (10 * p);
  }

  static String svg(Data d) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d"
                + " %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            W,
            H,
            W,
            H));
    sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"22\" font-size=\"14\">%s</text>\n",
            LEFT,
            escape(d.title())));
    for (int k = 0; k <= 5; k++) {
      long v = d.yMax * k / 5;
      double y = d.y(v);
      sb.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/><text x=\"%d\""
                  + " y=\"%.1f\" text-anchor=\"end\">%,d</text>\n",
              LEFT,
              y,
              W - RIGHT,
              y,
              LEFT - 6,
              y + 4,
              v));
    }
    if (d.fileStarts.size() > 1) {
      for (int s : d.fileStarts) {
        sb.append(
            String.format(
                Locale.ROOT,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#f4f4f4\"/>\n",
                d.x(s),
                TOP,
                d.x(s),
                H - BOTTOM));
      }
    }
    line(sb, d, d.budget, "#555", "budget", true);
    line(sb, d, d.windowLessOutput, "#000", "window − output", false);
    int i = 0;
    for (Map.Entry<String, long[]> e : d.series.entrySet()) {
      String color = PALETTE[i % PALETTE.length];
      StringBuilder pts = new StringBuilder();
      long[] s = e.getValue();
      for (int c = 0; c < s.length; c++) {
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", d.x(c), d.y(s[c])));
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"%s\"><title>%s"
                  + "</title></polyline>\n",
              color,
              pts.toString().trim(),
              escape(e.getKey())));
      int lx = LEFT + 10 + i * legendStep(d);
      sb.append(
          String.format(
              Locale.ROOT,
              "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/><text x=\"%d\""
                  + " y=\"%d\">%s</text>\n",
              lx,
              H - 22,
              color,
              lx + 20,
              H - 16,
              escape(e.getKey())));
      i++;
    }
    sb.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">call →</text>\n",
            W - RIGHT,
            H - BOTTOM + 18));
    sb.append("</svg>\n");
    return sb.toString();
  }

  private static void line(
      StringBuilder sb, Data d, long v, String color, String label, boolean below) {
    if (v <= 0 || v > d.yMax) {
      return;
    }
    double y = d.y(v);
    sb.append(
        String.format(
            Locale.ROOT,
            "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\""
                + " stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%.1f\" fill=\"%s\""
                + " text-anchor=\"end\">%s</text>\n",
            LEFT,
            y,
            W - RIGHT,
            y,
            color,
            W - RIGHT - 4,
            below ? y + 14 : y - 4,
            color,
            escape(label)));
  }

  static String html(Data d) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
        + escape(d.title())
        + "</title></head>\n<body style=\"margin:16px;font-family:sans-serif\">\n"
        + svg(d)
        + "</body></html>\n";
  }

  static BufferedImage png(Data d) {
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, W, H);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      g.setColor(Color.BLACK);
      g.drawString(d.title(), LEFT, 22);
      for (int k = 0; k <= 5; k++) {
        long v = d.yMax * k / 5;
        int y = (int) Math.round(d.y(v));
        g.setColor(new Color(0xEEEEEE));
        g.drawLine(LEFT, y, W - RIGHT, y);
        g.setColor(Color.DARK_GRAY);
        String label = String.format(Locale.ROOT, "%,d", v);
        g.drawString(label, LEFT - 6 - g.getFontMetrics().stringWidth(label), y + 4);
      }
      if (d.fileStarts.size() > 1) {
        g.setColor(new Color(0xF4F4F4));
        for (int s : d.fileStarts) {
          int x = (int) Math.round(d.x(s));
          g.drawLine(x, TOP, x, H - BOTTOM);
        }
      }
      dashed(g, d, d.budget, new Color(0x555555), "budget", true);
      dashed(g, d, d.windowLessOutput, Color.BLACK, "window − output", false);
      int i = 0;
      for (Map.Entry<String, long[]> e : d.series.entrySet()) {
        Color c = Color.decode(PALETTE[i % PALETTE.length]);
        g.setColor(c);
        g.setStroke(new BasicStroke(1.2f));
        long[] s = e.getValue();
        Path2D.Double p = new Path2D.Double();
        for (int k = 0; k < s.length; k++) {
          if (k == 0) {
            p.moveTo(d.x(k), d.y(s[k]));
          } else {
            p.lineTo(d.x(k), d.y(s[k]));
          }
        }
        g.draw(p);
        int lx = LEFT + 10 + i * legendStep(d);
        g.fillRect(lx, H - 22, 14, 4);
        g.setColor(Color.BLACK);
        g.drawString(e.getKey(), lx + 20, H - 16);
        i++;
      }
      g.setColor(Color.DARK_GRAY);
      String axis = "call →";
      g.drawString(axis, W - RIGHT - g.getFontMetrics().stringWidth(axis), H - BOTTOM + 18);
    } finally {
      g.dispose();
    }
    return img;
  }

  private static void dashed(Graphics2D g, Data d, long v, Color c, String label, boolean below) {
    if (v <= 0 || v > d.yMax) {
      return;
    }
    int y = (int) Math.round(d.y(v));
    g.setColor(c);
    g.setStroke(
        new BasicStroke(
            1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6, 4}, 0));
    g.drawLine(LEFT, y, W - RIGHT, y);
    g.setStroke(new BasicStroke(1f));
    g.drawString(
        label, W - RIGHT - 4 - g.getFontMetrics().stringWidth(label), below ? y + 14 : y - 4);
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
