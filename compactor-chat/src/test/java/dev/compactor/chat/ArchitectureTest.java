package dev.compactor.chat;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * compactor-chat sits above core and models only; its stores persist and decide nothing (no
 * settings, compaction, pricing or model code in {@code store}); JDBC stays in {@code store}.
 */
class ArchitectureTest {
  private static final JavaClasses CHAT =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.compactor.chat");

  @Test
  void chat_dependsOnNoModuleAboveIt() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.compactor.log..",
            "dev.compactor.server..",
            "dev.compactor.cli..",
            "dev.compactor.bench..",
            "picocli..")
        .check(CHAT);
  }

  @Test
  void stores_onlyPersist() {
    noClasses()
        .that()
        .resideInAPackage("dev.compactor.chat.store..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.compactor.chat.settings..",
            "dev.compactor.chat.compaction..",
            "dev.compactor.chat.json..",
            "dev.compactor.models..",
            "dev.compactor.core.model..")
        .check(CHAT);
  }

  @Test
  void onlyStoresTouchJdbc() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.compactor.chat.store..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "java.sql..",
            "javax.sql..",
            "org.sqlite..",
            "org.postgresql..",
            "com.zaxxer..",
            "org.flywaydb..")
        .check(CHAT);
  }
}
