package dev.compactor.models;

import dev.compactor.core.Bounds;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;

/**
 * How retryable failures ({@link dev.compactor.core.model.RetryableModelException}: 429, 5xx,
 * timeouts, connection resets) are retried. Non-retryable failures and context overflows are never
 * retried.
 *
 * <p>Before retry {@code n} (1 for the first retry) the client waits:
 *
 * <ul>
 *   <li>the provider's {@code Retry-After} (seconds or HTTP-date; or {@code retry-after-ms}) when
 *       given, exactly; if it is longer than {@code maxRetryAfter} the client gives up at once
 *       (waiting an hour inside a call helps nobody) and the exception carries the wait;
 *   <li>otherwise capped exponential backoff with jitter: {@code d = min(maxDelay, initialDelay ×
 *       multiplier^(n-1))}, then a random wait in {@code [d × (1 - jitter), d]}.
 * </ul>
 *
 * <p>Defaults ({@link #defaults()}): 4 attempts (3 retries), 0.5 s initial, ×2, capped at 8 s, 20 %
 * jitter, Retry-After honoured up to 60 s — close to the official SDKs (2 retries, 0.5–8 s) with
 * one more retry, since compaction jobs run unattended. Immutable, thread-safe.
 *
 * <pre>{@code
 * RetryPolicy p = RetryPolicy.defaults().withMaxAttempts(6);
 * }</pre>
 *
 * @param maxAttempts total attempts including the first, &ge; 1
 * @param initialDelay backoff before the first retry, &ge; 0
 * @param maxDelay cap of the backoff, &ge; initialDelay
 * @param multiplier growth per retry, &ge; 1
 * @param jitter fraction of the backoff that is randomised, in [0, 1]
 * @param maxRetryAfter the longest provider-requested wait honoured, &ge; 0
 */
public record RetryPolicy(
    int maxAttempts,
    Duration initialDelay,
    Duration maxDelay,
    double multiplier,
    double jitter,
    Duration maxRetryAfter) {

  public RetryPolicy {
    Objects.requireNonNull(initialDelay, "initialDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
    Bounds.atLeast(1, maxAttempts, "retry maxAttempts");
    if (initialDelay.isNegative() || maxDelay.compareTo(initialDelay) < 0) {
      throw new IllegalArgumentException(
          "retry delays must satisfy 0 <= initialDelay <= maxDelay, got "
              + initialDelay
              + " and "
              + maxDelay);
    }
    if (!(multiplier >= 1)) {
      throw new IllegalArgumentException("retry multiplier must be >= 1, got " + multiplier);
    }
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("retry jitter must be in [0, 1], got " + jitter);
    }
    if (maxRetryAfter.isNegative()) {
      throw new IllegalArgumentException("retry maxRetryAfter must be >= 0, got " + maxRetryAfter);
    }
  }

  /** 4 attempts, 0.5 s × 2 up to 8 s, 20 % jitter, Retry-After up to 60 s. */
  public static RetryPolicy defaults() {
    return new RetryPolicy(
        4, Duration.ofMillis(500), Duration.ofSeconds(8), 2.0, 0.2, Duration.ofSeconds(60));
  }

  /** A single attempt: no retries. */
  public static RetryPolicy none() {
    return defaults().withMaxAttempts(1);
  }

  public RetryPolicy withMaxAttempts(int attempts) {
    return new RetryPolicy(attempts, initialDelay, maxDelay, multiplier, jitter, maxRetryAfter);
  }

  public RetryPolicy withDelays(Duration initial, Duration max) {
    return new RetryPolicy(maxAttempts, initial, max, multiplier, jitter, maxRetryAfter);
  }

  public RetryPolicy withJitter(double newJitter) {
    return new RetryPolicy(
        maxAttempts, initialDelay, maxDelay, multiplier, newJitter, maxRetryAfter);
  }

  public RetryPolicy withMaxRetryAfter(Duration max) {
    return new RetryPolicy(maxAttempts, initialDelay, maxDelay, multiplier, jitter, max);
  }

  /** The backoff before retry {@code retry} (1-based) without a Retry-After. */
  public Duration backoff(int retry, Random random) {
    double base = initialDelay.toNanos() * Math.pow(multiplier, Math.max(0, retry - 1));
    double capped = Math.min(base, maxDelay.toNanos());
    double factor = 1 - jitter * random.nextDouble();
    return Duration.ofNanos((long) (capped * factor));
  }

  /**
   * The wait before retry {@code retry} (1-based), or empty when no retry should happen: the
   * attempts are used up, or the provider asked for a wait longer than {@code maxRetryAfter}.
   *
   * @param retryAfter the provider-requested wait, or null
   */
  public Optional<Duration> delayBeforeRetry(int retry, Duration retryAfter, Random random) {
    if (retry >= maxAttempts) {
      return Optional.empty();
    }
    if (retryAfter != null) {
      return retryAfter.compareTo(maxRetryAfter) > 0
          ? Optional.empty()
          : Optional.of(retryAfter.isNegative() ? Duration.ZERO : retryAfter);
    }
    return Optional.of(backoff(retry, random));
  }
}
