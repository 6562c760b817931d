package dev.compactor.providers;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Built like a third-party plugin: it uses compactor-core's public SPI and nothing else. */
class ArchitectureTest {
  private static final JavaClasses PROVIDERS =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.compactor.providers");

  @Test
  void providers_dependOnlyOnTheSpi_andTheJdk() {
    classes()
        .that()
        .resideInAPackage("dev.compactor.providers..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.compactor.providers..",
            "dev.compactor.core",
            "dev.compactor.core.compaction",
            "dev.compactor.core.message",
            "dev.compactor.core.tokens",
            "java..")
        .check(PROVIDERS);
  }
}
