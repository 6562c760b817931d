package dev.compactor.replay.strategy;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.CostPlanner;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;
import dev.compactor.replay.ReplayStrategy;
import java.time.Duration;
import java.util.Objects;

/**
 * {@code auto}: the default automatic policy ({@link AutoCompactor}) exactly as a live conversation
 * runs it after every turn: the 90 % reminder (a real, provider-visible message that later calls
 * send); from 25 % of the budget, the cost planner's early masking ({@link CostPlanner#DEFAULTS});
 * at the budget, observation masking when that alone is enough, else a trim toward 70 % of the
 * budget, else a summary; the failed-summary latch. The only difference to {@link
 * AutoCompactor#standard} is the throttle, which is zero: a replay has no wall-clock time between
 * turns, and every turn adds messages anyway.
 */
public final class AutoStrategy implements ReplayStrategy {
  /** The registered name. */
  public static final String NAME = "auto";

  /** The policy settings of the replay: the defaults without the throttle. */
  public static final AutoCompactor.Settings SETTINGS = settings(AutoCompactor.Settings.DEFAULTS);

  private final String name;
  private final AutoCompactor.Settings settings;
  private final double keepRecentShare;
  private final CostPlanner planner;
  private final java.util.Map<String, Object> options;

  /** The {@link java.util.ServiceLoader} constructor: {@link #SETTINGS}. */
  public AutoStrategy() {
    this(NAME, SETTINGS, 1.0, CostPlanner.DEFAULTS);
  }

  /**
   * With other policy settings (e.g. to try thresholds on the corpus).
   *
   * @param name the strategy's name in reports
   * @param settings the policy's thresholds
   * @param keepRecentShare the recent tail a summary keeps, as a share of the budget; capped at
   *     {@link PolicyContext#DEFAULT_KEEP_RECENT_TOKENS}
   */
  public AutoStrategy(String name, AutoCompactor.Settings settings, double keepRecentShare) {
    this(name, settings, keepRecentShare, null);
  }

  /**
   * With other policy settings and a cost planner.
   *
   * @param planner the policy's {@link AutoCompactor#planner(CostPlanner) cost planner}, or null
   */
  public AutoStrategy(
      String name, AutoCompactor.Settings settings, double keepRecentShare, CostPlanner planner) {
    this(name, settings, keepRecentShare, planner, java.util.Map.of());
  }

  /**
   * With other policy settings, a cost planner and strategy options.
   *
   * @param options the policy's {@link CompressionConfig#extraConfig()} (e.g. the masking
   *     placeholders' {@code names} and {@code mentions})
   */
  public AutoStrategy(
      String name,
      AutoCompactor.Settings settings,
      double keepRecentShare,
      CostPlanner planner,
      java.util.Map<String, Object> options) {
    this.planner = planner;
    this.options = java.util.Map.copyOf(options);
    this.name = Objects.requireNonNull(name, "name");
    this.settings = Objects.requireNonNull(settings, "settings");
    if (!(keepRecentShare > 0 && keepRecentShare <= 1)) {
      throw new IllegalArgumentException(
          "keepRecentShare must be in (0, 1], got " + keepRecentShare);
    }
    this.keepRecentShare = keepRecentShare;
  }

  /** {@code base} with the throttle set to zero. */
  public static AutoCompactor.Settings settings(AutoCompactor.Settings base) {
    return new AutoCompactor.Settings(
        base.reminderRatio(),
        base.trimTargetRatio(),
        base.minSavings(),
        base.latchGrowth(),
        Duration.ZERO);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return "the default automatic policy: early masking when it pays (cost planner), reminder at 90"
        + " %, at the budget masking, else trim toward 70 %, else summary";
  }

  @Override
  public ReplaySession start(ReplaySetup setup) {
    ProviderRegistry registry = ProviderRegistry.global();
    ContextProvider trim = registry.get(TrimProvider.NAME);
    long tail =
        Math.min(
            PolicyContext.DEFAULT_KEEP_RECENT_TOKENS,
            Math.round(keepRecentShare * setup.budgetTokens()));
    PolicyContext ctx =
        PolicyContext.of(
                setup.model(),
                setup.budgetTokens(),
                CompressionConfig.builder().counter(setup.counter()).extraConfig(options).build())
            .withKeepRecentTokens(tail);
    return new ConversationSession() {
      private final AutoCompactor policy =
          new AutoCompactor(
                  conversation,
                  registry.get("mask"),
                  trim,
                  Summaries.counted(setup),
                  AutoCompactor.savingsOf(trim),
                  settings,
                  setup.clock(),
                  r -> setup.events().compacted(r.strategy(), r.tokensBefore(), r.tokensAfter()))
              .planner(planner);

      @Override
      public void afterTurn() {
        CompactionOutcome o = policy.afterTurn(ctx);
        if (o instanceof CompactionOutcome.Reminded) {
          setup.events().reminded();
        } else if (o instanceof CompactionOutcome.Failed f) {
          setup.events().failed(f.strategy(), f.reason());
        }
      }
    };
  }
}
