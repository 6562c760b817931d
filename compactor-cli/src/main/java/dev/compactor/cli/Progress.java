package dev.compactor.cli;

import java.io.PrintWriter;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What a long command is doing, on stderr: a line when a step starts, and while a step runs longer
 * than {@link #QUIET_MS} its status every {@link #EVERY_MS} (e.g. "importing: 1,200 of 2,000
 * messages", "compacting with summarize: 12 s"). Quick steps print their start line only.
 */
final class Progress implements AutoCloseable {
  static final long QUIET_MS = 2_000;
  static final long EVERY_MS = 3_000;

  private final PrintWriter err;
  private final ScheduledExecutorService ticker;
  private ScheduledFuture<?> running;
  private long started;

  Progress(PrintWriter err) {
    this.err = err;
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "compactor-progress");
              t.setDaemon(true);
              return t;
            });
  }

  /** Prints {@code line} and, while the step runs, {@code status} now and then. */
  synchronized void step(String line, Supplier<String> status) {
    stop();
    say(line);
    started = System.nanoTime();
    running =
        ticker.scheduleAtFixedRate(
            () -> {
              long s = (System.nanoTime() - started) / 1_000_000_000L;
              say("  … " + status.get() + " (" + s + " s)");
            },
            QUIET_MS,
            EVERY_MS,
            TimeUnit.MILLISECONDS);
  }

  /** Prints a line with no status to follow. */
  synchronized void say(String line) {
    err.println("compactor: " + line);
    err.flush();
  }

  /** Ends the running step's status lines. */
  synchronized void stop() {
    if (running != null) {
      running.cancel(false);
      running = null;
    }
  }

  @Override
  public void close() {
    stop();
    ticker.shutdownNow();
  }
}
