package dev.compactor.replay.strategy;

import dev.compactor.core.policy.CostPlanner;
import dev.compactor.replay.NamedReplayStrategy;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;

/**
 * {@code auto-recall}: the default policy ({@code auto}) in an agent loop that offers the model the
 * recovery tool {@code recall_output(id)} ({@link dev.compactor.core.recovery.RecallTool}). The
 * views are {@code auto}'s; the replay adds a round trip whenever a call needs a fact that only a
 * masked output of its view held, and bills it (see {@code docs/replay.md}).
 */
public final class AutoRecallStrategy extends NamedReplayStrategy {
  /** The registered name. */
  public static final String NAME = "auto-recall";

  private final AutoStrategy auto =
      new AutoStrategy(NAME, AutoStrategy.SETTINGS, 1.0, CostPlanner.DEFAULTS);

  /** The {@link java.util.ServiceLoader} constructor. */
  public AutoRecallStrategy() {
    super(NAME, "auto with the recovery tool recall_output(id) offered to the model");
  }

  @Override
  public ReplaySession start(ReplaySetup setup) {
    return auto.start(setup);
  }

  @Override
  public boolean recallTool() {
    return true;
  }
}
