package dev.compactor.models;

import java.time.Duration;

/**
 * Waits between retries. Injected so tests need not sleep; {@link #SYSTEM} really sleeps.
 *
 * <pre>{@code
 * List<Duration> waits = new ArrayList<>();
 * ChatModelOptions.builder().sleeper(waits::add)...
 * }</pre>
 */
@FunctionalInterface
public interface Sleeper {
  /** Sleeps the calling thread with {@link Thread#sleep}. */
  Sleeper SYSTEM =
      d -> {
        long nanos = d.toNanos();
        Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
      };

  /**
   * Waits for {@code duration}.
   *
   * @throws InterruptedException when the thread is interrupted; the retry stops and the last
   *     failure is thrown with the interrupt flag restored
   */
  void sleep(Duration duration) throws InterruptedException;
}
