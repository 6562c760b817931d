package dev.compactor.core.compaction;

import dev.compactor.core.Bounds;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Configuration passed to {@link ContextProvider} methods.
 *
 * @param limit target token limit; null disables the automatic {@code shouldCompress} check of the
 *     built-in providers (custom providers may treat null differently)
 * @param maxToolResultTokens tool results above this many tokens are truncated (default 2,000)
 * @param archive where removed content is saved for recovery (default {@link OutputArchive#NONE})
 * @param reasoningStripAgeThreshold strip reasoning from messages older than this many positions;
 *     null (the default) disables it: reasoning blocks are never rewritten by the built-ins
 * @param keepHead messages at the start that stay verbatim (default 0)
 * @param trimTargetRatio fraction of {@code limit} a trim aims at (default 1.0; the automatic
 *     policy uses 0.7)
 * @param counter how tokens are counted (default: the calibrated-estimate counter)
 * @param extraConfig provider-specific options; values are plain JSON-like values
 */
public record CompressionConfig(
    Integer limit,
    int maxToolResultTokens,
    OutputArchive archive,
    Integer reasoningStripAgeThreshold,
    int keepHead,
    double trimTargetRatio,
    TokenCounter counter,
    Map<String, Object> extraConfig) {

  public static final int DEFAULT_MAX_TOOL_RESULT_TOKENS = 2000;

  public CompressionConfig {
    if (limit != null && limit <= 0) {
      throw new IllegalArgumentException("limit must be > 0 or null, got " + limit);
    }
    Bounds.positive(maxToolResultTokens, "maxToolResultTokens");
    Bounds.atLeast(0, keepHead, "keepHead");
    if (!(trimTargetRatio > 0 && trimTargetRatio <= 1)) {
      throw new IllegalArgumentException(
          "trimTargetRatio must be in (0, 1], got " + trimTargetRatio);
    }
    archive = archive == null ? OutputArchive.NONE : archive;
    counter = counter == null ? TokenCounters.estimate() : counter;
    extraConfig =
        extraConfig == null || extraConfig.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(extraConfig));
    Objects.requireNonNull(counter);
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder()
        .limit(limit)
        .maxToolResultTokens(maxToolResultTokens)
        .archive(archive)
        .reasoningStripAgeThreshold(reasoningStripAgeThreshold)
        .keepHead(keepHead)
        .trimTargetRatio(trimTargetRatio)
        .counter(counter)
        .extraConfig(extraConfig);
  }

  /** The token target of a trim: {@code limit × trimTargetRatio}, or null without a limit. */
  public Integer target() {
    return limit == null ? null : (int) Math.max(1, Math.floor(limit * trimTargetRatio));
  }

  /** Builder with the documented defaults. */
  public static final class Builder {
    private Integer limit;
    private int maxToolResultTokens = DEFAULT_MAX_TOOL_RESULT_TOKENS;
    private OutputArchive archive = OutputArchive.NONE;
    private Integer reasoningStripAgeThreshold;
    private int keepHead;
    private double trimTargetRatio = 1.0;
    private TokenCounter counter;
    private Map<String, Object> extraConfig = Map.of();

    public Builder limit(Integer limit) {
      this.limit = limit;
      return this;
    }

    public Builder maxToolResultTokens(int v) {
      this.maxToolResultTokens = v;
      return this;
    }

    public Builder archive(OutputArchive archive) {
      this.archive = archive;
      return this;
    }

    public Builder reasoningStripAgeThreshold(Integer v) {
      this.reasoningStripAgeThreshold = v;
      return this;
    }

    public Builder keepHead(int v) {
      this.keepHead = v;
      return this;
    }

    public Builder trimTargetRatio(double v) {
      this.trimTargetRatio = v;
      return this;
    }

    public Builder counter(TokenCounter counter) {
      this.counter = counter;
      return this;
    }

    public Builder extraConfig(Map<String, Object> extraConfig) {
      this.extraConfig = extraConfig;
      return this;
    }

    public CompressionConfig build() {
      return new CompressionConfig(
          limit,
          maxToolResultTokens,
          archive,
          reasoningStripAgeThreshold,
          keepHead,
          trimTargetRatio,
          counter,
          extraConfig);
    }
  }
}
