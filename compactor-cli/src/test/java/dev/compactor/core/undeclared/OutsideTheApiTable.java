package dev.compactor.core.undeclared;

import dev.compactor.cli.Main;

/**
 * A deliberate violation of two API-boundary rules, for the architecture rules' own test only: a
 * class in compactor-core's package tree whose package is neither listed as API nor internal, and
 * which depends on the CLI, an application module.
 */
public final class OutsideTheApiTable {
  private OutsideTheApiTable() {}

  /** Takes the CLI's entry point, so the class depends on the CLI. */
  public static String describe(Main main) {
    return String.valueOf(main);
  }
}
