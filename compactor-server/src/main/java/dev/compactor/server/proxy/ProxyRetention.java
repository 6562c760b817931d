package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.Json;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Deletes proxy conversations whose last request is older than the retention period, on a daemon
 * thread, every {@link #interval(Duration)}: each sweep deletes in the store's transactions ({@link
 * ProxyStore#deleteInactiveBefore}), so a request in flight never finds half a conversation. With
 * several instances on one database each sweeps; deleting what another deleted already is a no-op.
 * Thread-safe.
 */
public final class ProxyRetention implements AutoCloseable {
  private final ProxyStore store;
  private final Duration retention;
  private final Clock clock;
  private final ProxyMetrics metrics;
  private final PrintStream log;
  private ScheduledExecutorService timer;

  /**
   * @param retention how long after its last request a conversation is kept; zero keeps every one
   *     (then {@link #sweep()} deletes nothing and {@link #start()} schedules nothing)
   */
  public ProxyRetention(
      ProxyStore store, Duration retention, Clock clock, ProxyMetrics metrics, PrintStream log) {
    this.store = Objects.requireNonNull(store, "store");
    this.retention = Objects.requireNonNull(retention, "retention");
    if (retention.isNegative()) {
      throw new IllegalArgumentException("retention must not be negative, got " + retention);
    }
    this.clock = Objects.requireNonNull(clock, "clock");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.log = Objects.requireNonNull(log, "log");
  }

  /** How often the sweep runs: a 24th of the retention, between 1 second and 1 hour. */
  public static Duration interval(Duration retention) {
    Duration d = retention.dividedBy(24);
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      return Duration.ofSeconds(1);
    }
    return d.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : d;
  }

  /**
   * Deletes the conversations inactive for longer than the retention now.
   *
   * @return how many were deleted
   * @throws ProxyStore.ProxyStoreException when the database fails
   */
  public int sweep() {
    if (retention.isZero()) {
      return 0;
    }
    Instant cutoff = clock.instant().minus(retention);
    int n = store.deleteInactiveBefore(cutoff);
    if (n > 0) {
      metrics.retentionDeleted(n);
    }
    return n;
  }

  /** Starts sweeping every {@link #interval(Duration)}, the first time at once. */
  public synchronized void start() {
    if (retention.isZero() || timer != null) {
      return;
    }
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "compactor-proxy-retention");
              t.setDaemon(true);
              return t;
            });
    long every = interval(retention).toMillis();
    timer.scheduleWithFixedDelay(this::sweepLogged, 0, every, TimeUnit.MILLISECONDS);
  }

  private void sweepLogged() {
    try {
      sweep();
    } catch (RuntimeException e) {
      ObjectNode o = Json.object();
      o.put("ts", Instant.now().toString());
      o.put("level", "warn");
      o.put("proxy", "the retention sweep failed; it runs again later");
      o.put("exception", e.getClass().getName());
      synchronized (log) {
        log.println(Json.write(o));
        log.flush();
      }
    }
  }

  /** Stops sweeping (a sweep under way finishes its transaction). */
  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdown();
      try {
        timer.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      timer = null;
    }
  }
}
