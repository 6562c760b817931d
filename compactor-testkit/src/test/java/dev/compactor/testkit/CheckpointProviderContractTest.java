package dev.compactor.testkit;

import dev.compactor.core.compaction.ContextProvider;

class CheckpointProviderContractTest extends ContextProviderContract {
  @Override
  protected ContextProvider provider() {
    return new CheckpointProvider();
  }
}
