package dev.compactor.testkit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * What the modules' ArchUnit tests share: a module's main classes and the rules that more than one
 * module states about itself. The ArchUnit dependency is optional: a module whose tests use this
 * class declares {@code archunit-junit5} itself, with test scope.
 */
public final class ModuleArchitecture {
  private ModuleArchitecture() {}

  /** The main classes (no test classes) of the packages below {@code rootPackage}. */
  public static JavaClasses mainClasses(String rootPackage) {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages(rootPackage);
  }

  /**
   * No class uses an {@code internal} package of any module (compactor-cli's {@code
   * ArchitectureTest} makes every other package of a library module an API package) or a class of
   * the application modules.
   */
  public static ArchRule usesNoInternalPackageNorApplication() {
    return noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.compactor..internal..", "dev.compactor.cli..", "dev.compactor.bench..");
  }

  /**
   * The classes below {@code rootPackage} depend only on classes below it and in {@code packages}
   * (ArchUnit package patterns).
   */
  public static ArchRule dependsOnlyOn(String rootPackage, String... packages) {
    return classes()
        .that()
        .resideInAPackage(rootPackage + "..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            Stream.concat(Stream.of(rootPackage + ".."), Arrays.stream(packages))
                .toArray(String[]::new));
  }
}
