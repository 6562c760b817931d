package dev.compactor.testkit;

import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.mask.MaskProvider;

/** The built-in {@code mask} strategy with its defaults (keep the last 10, batches of 10). */
class MaskProviderContractTest extends ContextProviderContract {
  @Override
  protected ContextProvider provider() {
    return new MaskProvider();
  }
}
