package dev.compactor.server.inspect;

import java.util.List;
import java.util.Locale;

/**
 * The context size of each model call as an inline SVG: one bar per call (reported sizes solid,
 * counted ones lighter), the budget and the window as horizontal lines, each compaction as a
 * vertical dashed line between the calls it came between.
 */
final class ContextChart {
  private static final int W = 900;
  private static final int H = 260;
  private static final int LEFT = 70;
  private static final int RIGHT = 20;
  private static final int TOP = 20;
  private static final int BOTTOM = 40;

  private ContextChart() {}

  static String svg(InspectedConversation c) {
    List<InspectedConversation.Call> calls = c.calls();
    long max = Math.max(1, c.budget());
    for (InspectedConversation.Call call : calls) {
      max = Math.max(max, call.tokens());
    }
    // a window far above every call would flatten the bars: it is drawn at the top, marked so
    boolean windowOffScale = c.window() > 2 * max;
    max =
        windowOffScale
            ? (long) Math.ceil(max * 1.15)
            : (long) Math.ceil(Math.max(max, c.window()) * 1.05);
    int plotW = W - LEFT - RIGHT;
    int plotH = H - TOP - BOTTOM;
    int n = Math.max(1, calls.size());
    double step = (double) plotW / n;
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "<svg id=\"context-chart\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\""
                + " viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"context size per model call\">",
            W,
            H));
    s.append("<title>context size per model call</title>");
    // axes and y ticks
    for (int t = 0; t <= 4; t++) {
      long v = max * t / 4;
      double y = TOP + plotH - (double) plotH * v / max;
      s.append(
          String.format(
              Locale.ROOT,
              "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                  + "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
              LEFT,
              y,
              W - RIGHT,
              y,
              LEFT - 6,
              y + 4,
              Html.esc(short_(v))));
    }
    for (int i = 0; i < calls.size(); i++) {
      InspectedConversation.Call call = calls.get(i);
      double h = (double) plotH * call.tokens() / max;
      double x = LEFT + i * step + step * 0.1;
      s.append(
          String.format(
              Locale.ROOT,
              "<rect class=\"bar%s\" data-tokens=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\""
                  + " height=\"%.1f\"><title>call %d (reply #%d): %s tokens%s</title></rect>",
              call.reported() ? " reported" : " counted",
              call.tokens(),
              x,
              TOP + plotH - h,
              Math.max(1, step * 0.8),
              h,
              i + 1,
              call.masterIndex(),
              Html.n(call.tokens()),
              call.reported() ? " (reported by the provider)" : " (counted)"));
    }
    line(s, "budget", c.budget(), max, plotH);
    if (windowOffScale) {
      s.append(
          String.format(
              Locale.ROOT,
              "<line class=\"window off-scale\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
                  + "<text class=\"label window\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
                  + "window %s (above the scale)</text>",
              LEFT,
              TOP,
              W - RIGHT,
              TOP,
              W - RIGHT - 4,
              TOP + 12,
              Html.esc(short_(c.window()))));
    } else {
      line(s, "window", c.window(), max, plotH);
    }
    for (int at : c.compactions()) {
      double x = LEFT + at * step;
      s.append(
          String.format(
              Locale.ROOT,
              "<line class=\"compaction\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\">"
                  + "<title>compaction before call %d</title></line>",
              x,
              TOP,
              x,
              TOP + plotH,
              at + 1));
    }
    s.append(
        String.format(
            Locale.ROOT,
            "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">model call (%d)</text>",
            LEFT + plotW / 2,
            H - 10,
            calls.size()));
    s.append("</svg>");
    return s.toString();
  }

  private static void line(StringBuilder s, String what, long v, long max, int plotH) {
    if (v <= 0) {
      return;
    }
    double y = TOP + plotH - (double) plotH * v / max;
    s.append(
        String.format(
            Locale.ROOT,
            "<line class=\"%s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
                + "<text class=\"label %s\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s %s</text>",
            what,
            LEFT,
            y,
            W - RIGHT,
            y,
            what,
            W - RIGHT - 4,
            y - 4,
            what,
            Html.esc(short_(v))));
  }

  private static String short_(long v) {
    if (v >= 1_000_000) {
      return String.format(Locale.ROOT, "%.1fM", v / 1e6);
    }
    if (v >= 10_000) {
      return String.format(Locale.ROOT, "%.0fk", v / 1e3);
    }
    return Long.toString(v);
  }
}
