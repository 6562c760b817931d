package dev.compactor.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/** compactor-core knows nothing of files formats, HTTP, SQL, the CLI or the other modules. */
class ArchitectureTest {
  private static final JavaClasses CORE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.compactor.core");

  private static void assertNoCoreClassDependsOn(String... packages) {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("dev.compactor.core..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(packages);
    rule.check(CORE);
  }

  @Test
  void core_dependsOnNoOtherCompactorModule() {
    assertNoCoreClassDependsOn(
        "dev.compactor.wire..",
        "dev.compactor.log..",
        "dev.compactor.models..",
        "dev.compactor.chat..",
        "dev.compactor.server..",
        "dev.compactor.cli..",
        "dev.compactor.bench..");
  }

  @Test
  void core_usesNoHttpJdbcOrFileFormatLibrary() {
    assertNoCoreClassDependsOn(
        "java.net.http..",
        "java.sql..",
        "javax.sql..",
        "com.fasterxml.jackson..",
        "tools.jackson..",
        "com.google.gson..",
        "org.yaml..",
        "com.sun.net.httpserver..",
        "io.javalin..",
        "org.eclipse.jetty..",
        "okhttp3..",
        "org.apache.http..",
        "org.postgresql..",
        "org.sqlite..",
        "picocli..",
        "org.slf4j..",
        "ch.qos.logback..",
        "org.apache.logging..");
  }

  @Test
  void core_importsClassesAtAll() {
    // Guards the two rules above against passing vacuously on an empty import.
    org.assertj.core.api.Assertions.assertThat(CORE.contain("dev.compactor.core.message.Message"))
        .isTrue();
  }
}
