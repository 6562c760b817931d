package dev.compactor.replay;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Replay time: the timestamp of the newest recorded message seen (the epoch before any). Messages a
 * strategy adds (reminders, checkpoints, status lines) then keep timestamps in order with the
 * recorded ones that follow. Not thread-safe: one per replayed conversation.
 */
final class ReplayClock extends Clock {
  private Instant now = Instant.EPOCH;

  void advanceTo(Instant t) {
    if (t != null && t.isAfter(now)) {
      now = t;
    }
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
}
