package dev.compactor.replay.strategy;

import dev.compactor.replay.NamedReplayStrategy;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;

/**
 * {@code auto-fixed}: the default policy as it was before the cost planner (#16), kept as a
 * scorecard row to compare with: masking only at the budget, in batches of 10 keeping the last 5
 * outputs, with the placeholders' default names; then trim, then summary.
 */
public final class AutoFixedStrategy extends NamedReplayStrategy {
  /** The registered name. */
  public static final String NAME = "auto-fixed";

  private final AutoStrategy auto = new AutoStrategy(NAME, AutoStrategy.SETTINGS, 1.0, null);

  /** The {@link java.util.ServiceLoader} constructor. */
  public AutoFixedStrategy() {
    super(
        NAME,
        "the default policy without the cost planner: masking in fixed batches at the budget");
  }

  @Override
  public ReplaySession start(ReplaySetup setup) {
    return auto.start(setup);
  }
}
