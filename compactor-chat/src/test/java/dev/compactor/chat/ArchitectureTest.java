package dev.compactor.chat;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import dev.compactor.testkit.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/**
 * compactor-chat sits above core and models only; its stores persist and decide nothing (no
 * settings, compaction, pricing or model code in {@code store}); JDBC stays in {@code store}; its
 * packages import each other without cycles ({@code base} at the bottom, the service at the top).
 */
class ArchitectureTest {
  private static final JavaClasses CHAT = ModuleArchitecture.mainClasses("dev.compactor.chat");

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
            "dev.compactor.chat.internal..",
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

  /** Each top-level package of the module is one slice; the root package is a slice of its own. */
  private static final SliceAssignment CHAT_PACKAGES =
      new SliceAssignment() {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
          String p = c.getPackageName();
          if (!p.equals("dev.compactor.chat") && !p.startsWith("dev.compactor.chat.")) {
            return SliceIdentifier.ignore();
          }
          String rest = p.substring("dev.compactor.chat".length());
          return SliceIdentifier.of(rest.isEmpty() ? "chat" : rest.substring(1).split("\\.")[0]);
        }

        @Override
        public String getDescription() {
          return "the packages of compactor-chat";
        }
      };

  @Test
  void packages_haveNoCycles() {
    SlicesRuleDefinition.slices().assignedFrom(CHAT_PACKAGES).should().beFreeOfCycles().check(CHAT);
  }
}
