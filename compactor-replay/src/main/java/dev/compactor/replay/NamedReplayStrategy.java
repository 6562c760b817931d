package dev.compactor.replay;

import java.util.Objects;

/**
 * A {@link ReplayStrategy} whose name and description are given when it is made; subclasses say how
 * it {@link #start}s.
 */
public abstract class NamedReplayStrategy implements ReplayStrategy {
  private final String name;
  private final String description;

  /**
   * @param name the unique name used on the command line and in reports
   * @param description one line saying what the strategy does
   */
  protected NamedReplayStrategy(String name, String description) {
    this.name = Objects.requireNonNull(name, "name");
    this.description = Objects.requireNonNull(description, "description");
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String description() {
    return description;
  }
}
