package dev.compactor.models.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.models.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void backoff_growsExponentially_isCapped_andJitteredDownward() {
    RetryPolicy p = RetryPolicy.defaults();
    Random random = new Random(7);
    for (int retry = 1; retry <= 8; retry++) {
      long base = Math.min(500L << (retry - 1), 8000L);
      Duration d = p.backoff(retry, random);
      assertThat(d.toMillis()).isBetween((long) (base * 0.8) - 1, base);
    }
    assertThat(p.withJitter(0).backoff(3, random)).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void delayBeforeRetry_stopsAfterMaxAttempts() {
    RetryPolicy p = RetryPolicy.defaults().withMaxAttempts(3);
    Random r = new Random(1);
    assertThat(p.delayBeforeRetry(1, null, r)).isPresent();
    assertThat(p.delayBeforeRetry(2, null, r)).isPresent();
    assertThat(p.delayBeforeRetry(3, null, r)).isEmpty();
    assertThat(RetryPolicy.none().delayBeforeRetry(1, null, r)).isEmpty();
  }

  @Test
  void retryAfter_isHonouredExactly_unlessLongerThanTheCap() {
    RetryPolicy p = RetryPolicy.defaults();
    Random r = new Random(1);
    assertThat(p.delayBeforeRetry(1, Duration.ofSeconds(7), r)).contains(Duration.ofSeconds(7));
    assertThat(p.delayBeforeRetry(1, Duration.ofMinutes(5), r)).isEmpty();
  }

  @Test
  void retryAfterHeader_secondsMillisAndHttpDate() {
    Clock clock = Clock.fixed(Instant.parse("2026-03-01T10:00:00Z"), ZoneOffset.UTC);
    assertThat(HttpTransport.parseRetryAfter(null, "2", clock)).isEqualTo(Duration.ofSeconds(2));
    assertThat(HttpTransport.parseRetryAfter(null, "0.5", clock)).isEqualTo(Duration.ofMillis(500));
    assertThat(HttpTransport.parseRetryAfter("250", "9", clock)).isEqualTo(Duration.ofMillis(250));
    assertThat(HttpTransport.parseRetryAfter(null, "Sun, 01 Mar 2026 10:00:30 GMT", clock))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(HttpTransport.parseRetryAfter(null, "Sun, 01 Mar 2026 09:00:00 GMT", clock))
        .isEqualTo(Duration.ZERO);
    assertThat(HttpTransport.parseRetryAfter(null, "soon", clock)).isNull();
    assertThat(HttpTransport.parseRetryAfter(null, null, clock)).isNull();
  }

  @Test
  void invalidPolicies_areRejectedNamingTheValue() {
    assertThatThrownBy(() -> RetryPolicy.defaults().withMaxAttempts(0))
        .hasMessageContaining("maxAttempts must be >= 1, got 0");
    assertThatThrownBy(() -> RetryPolicy.defaults().withJitter(1.5))
        .hasMessageContaining("jitter must be in [0, 1], got 1.5");
    assertThatThrownBy(
            () -> RetryPolicy.defaults().withDelays(Duration.ofSeconds(5), Duration.ofSeconds(1)))
        .hasMessageContaining("initialDelay <= maxDelay");
  }
}
