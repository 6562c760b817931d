package dev.compactor.testkit;

import dev.compactor.core.compaction.ContextProvider;

class TruncatingProviderContractTest extends ContextProviderContract {
  @Override
  protected ContextProvider provider() {
    return new TruncatingProvider();
  }
}
