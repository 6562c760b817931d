package dev.compactor.core.policy;

import java.util.Locale;

/** What started a compaction. */
public enum Trigger {
  /** The post-turn policy: the conversation reached its budget. */
  AUTO,
  /** A person asked for it ({@code /compact}, the {@code compact} command, the API). */
  MANUAL,
  /** A provider answered that the context is too long. */
  OVERFLOW;

  /** Lower-case name used in journals and reports. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
