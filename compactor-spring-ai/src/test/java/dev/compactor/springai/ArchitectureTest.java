package dev.compactor.springai;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The Spring AI adapter (and its Boot auto-configuration) is built on the public API of core, log
 * and chat only: no other module's {@code internal} package (compactor-cli's {@code
 * ArchitectureTest} checks the same for the modules on its class path; this module is not one of
 * them).
 */
class ArchitectureTest {
  private static final JavaClasses ADAPTER =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.compactor.springai");

  @Test
  void adapter_usesNoInternalPackageOfAnotherModule() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            // Every module's internal packages (compactor-cli's ArchitectureTest makes every other
            // package of a library module an API package) and the application modules.
            "dev.compactor..internal..", "dev.compactor.cli..", "dev.compactor.bench..")
        .check(ADAPTER);
  }

  @Test
  void adapter_importsClassesAtAll() {
    // Guards the rule above against passing vacuously on an empty import.
    assertThat(ADAPTER.contain("dev.compactor.springai.CompactingChatMemory")).isTrue();
  }
}
