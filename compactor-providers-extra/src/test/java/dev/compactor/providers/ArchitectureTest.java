package dev.compactor.providers;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.compactor.testkit.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/** Built like a third-party plugin: it uses compactor-core's public SPI and nothing else. */
class ArchitectureTest {
  private static final JavaClasses PROVIDERS =
      ModuleArchitecture.mainClasses("dev.compactor.providers");

  @Test
  void providers_dependOnlyOnTheSpi_andTheJdk() {
    ModuleArchitecture.dependsOnlyOn(
            "dev.compactor.providers",
            "dev.compactor.core",
            "dev.compactor.core.compaction",
            "dev.compactor.core.message",
            "dev.compactor.core.tokens",
            "java..")
        .check(PROVIDERS);
  }
}
