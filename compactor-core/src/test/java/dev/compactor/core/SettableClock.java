package dev.compactor.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock a test sets or advances; it stands still otherwise. */
public final class SettableClock extends Clock {
  /** The time the clock reads. */
  public Instant now;

  /** A clock that reads {@code start}. */
  public SettableClock(Instant start) {
    this.now = start;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }

  /** Moves the clock forward by {@code d}. */
  public void advance(Duration d) {
    now = now.plus(d);
  }
}
