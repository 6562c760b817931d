package dev.compactor.replay.report;

import dev.compactor.replay.ProgressListener;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * A one-line progress bar for a terminal's standard error: {@code [#######.....] 58 % 3,655 of
 * 6,326 calls auto deepseek_chat_dev__pvlib…}, redrawn in place at most ten times a second and
 * cleared when the run finishes. Thread-safe.
 */
public final class ProgressBar implements ProgressListener {
  private static final int WIDTH = 30;
  private static final long REDRAW_NANOS = 100_000_000L;

  private final PrintWriter out;
  private long lastDraw;
  private boolean drawn;

  /** A bar drawn on {@code out} (usually standard error). */
  public ProgressBar(PrintWriter out) {
    this.out = out;
  }

  @Override
  public synchronized void reading(String file) {
    long now = System.nanoTime();
    if (now - lastDraw < REDRAW_NANOS) {
      return;
    }
    lastDraw = now;
    draw("reading " + shorten(file, 60));
  }

  @Override
  public synchronized void progress(long done, long total, String conversation, String strategy) {
    long now = System.nanoTime();
    if (done < total && now - lastDraw < REDRAW_NANOS) {
      return;
    }
    lastDraw = now;
    int filled = total == 0 ? WIDTH : (int) (WIDTH * done / total);
    String bar =
        "["
            + "#".repeat(filled)
            + ".".repeat(WIDTH - filled)
            + "] "
            + String.format(
                Locale.ROOT,
                "%3d %%  %,d of %,d calls  %s  %s",
                total == 0 ? 100 : 100 * done / total,
                done,
                total,
                strategy,
                shorten(conversation, 40));
    draw(bar);
  }

  @Override
  public synchronized void finished() {
    if (drawn) {
      out.print("\r\033[K");
      out.flush();
      drawn = false;
    }
  }

  private void draw(String line) {
    out.print("\r\033[K" + line);
    out.flush();
    drawn = true;
  }

  private static String shorten(String s, int max) {
    return s.length() <= max ? s : "…" + s.substring(s.length() - max + 1);
  }
}
