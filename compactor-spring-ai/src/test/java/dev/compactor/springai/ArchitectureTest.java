package dev.compactor.springai;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.compactor.testkit.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/**
 * The Spring AI adapter (and its Boot auto-configuration) is built on the public API of core, log
 * and chat only: no other module's {@code internal} package (compactor-cli's {@code
 * ArchitectureTest} checks the same for the modules on its class path; this module is not one of
 * them).
 */
class ArchitectureTest {
  private static final JavaClasses ADAPTER =
      ModuleArchitecture.mainClasses("dev.compactor.springai");

  @Test
  void adapter_usesNoInternalPackageOfAnotherModule() {
    ModuleArchitecture.usesNoInternalPackageNorApplication().check(ADAPTER);
  }

  @Test
  void adapter_importsClassesAtAll() {
    // Guards the rule above against passing vacuously on an empty import.
    assertThat(ADAPTER.contain("dev.compactor.springai.CompactingChatMemory")).isTrue();
  }
}
