package dev.compactor.cli.boundary;

import dev.compactor.models.internal.Requests;
import java.util.Set;

/** A deliberate violation of the API boundary, for the architecture rule's own test only. */
public final class ReachesIntoAnotherModule {
  private ReachesIntoAnotherModule() {}

  /** Uses a compactor-models implementation class from the CLI's package tree. */
  public static Set<String> reserved() {
    return Requests.RESERVED_OPTIONS;
  }
}
