package dev.compactor.providers;

import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.providers.redundancy.RedundancyProvider;
import dev.compactor.testkit.ContextProviderContract;

class RedundancyProviderContractTest extends ContextProviderContract {
  @Override
  protected ContextProvider provider() {
    return new RedundancyProvider();
  }
}
