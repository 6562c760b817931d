package dev.compactor.providers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.providers.codeaware.CodeAwareProvider;
import dev.compactor.providers.redundancy.RedundancyProvider;
import org.junit.jupiter.api.Test;

/** On the class path, this module's providers are found by name with no registration code. */
class DiscoveryTest {

  @Test
  void serviceLoader_findsBothProvidersByName() {
    ProviderRegistry registry = new ProviderRegistry(getClass().getClassLoader());
    assertThat(registry.get("code-aware")).isInstanceOf(CodeAwareProvider.class);
    assertThat(registry.get("redundancy")).isInstanceOf(RedundancyProvider.class);
    assertThat(registry.list()).contains("code-aware", "mask", "redundancy").isSorted();
  }

  @Test
  void globalRegistry_seesThem() {
    assertThat(ProviderRegistry.global().contains("code-aware")).isTrue();
    assertThat(ProviderRegistry.global().contains("redundancy")).isTrue();
  }
}
