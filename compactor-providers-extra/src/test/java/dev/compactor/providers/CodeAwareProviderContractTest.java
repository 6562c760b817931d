package dev.compactor.providers;

import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.providers.codeaware.CodeAwareProvider;
import dev.compactor.testkit.ContextProviderContract;

class CodeAwareProviderContractTest extends ContextProviderContract {
  @Override
  protected ContextProvider provider() {
    return new CodeAwareProvider();
  }
}
