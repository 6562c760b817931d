package dev.compactor.chat.settings;

import java.util.Optional;

/**
 * The effective compaction settings of a chat: each kind present only when the chat has settings of
 * that kind (the report then has that kind's section), resolved against the defaults.
 *
 * @param summary summary compaction settings, or null when the chat has none
 * @param provider provider compaction settings, or null when the chat has none
 */
public record CompactionSettings(SummarySettings summary, ProviderSettings provider) {
  /** No compaction settings at all. */
  public static final CompactionSettings NONE = new CompactionSettings(null, null);

  /**
   * @throws IllegalArgumentException when both kinds are enabled: a chat uses one or the other
   */
  public CompactionSettings {
    if (summary != null && summary.enabled() && provider != null && provider.enabled()) {
      throw new IllegalArgumentException(
          "summary and provider compaction cannot both be enabled on one chat");
    }
  }

  public Optional<SummarySettings> summarySettings() {
    return Optional.ofNullable(summary);
  }

  public Optional<ProviderSettings> providerSettings() {
    return Optional.ofNullable(provider);
  }

  /** Whether the chat has settings of either kind (then every call reports compaction). */
  public boolean exists() {
    return summary != null || provider != null;
  }
}
