package dev.compactor.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.compactor.cli.boundary.ReachesIntoAnotherModule;
import org.junit.jupiter.api.Test;

/**
 * API boundaries between the modules: a package with an {@code internal} segment belongs to the
 * module whose root package holds it ({@code dev.compactor.models.internal} to compactor-models,
 * {@code dev.compactor.core.internal} to compactor-core), and no class of another module depends on
 * it. Checked here because compactor-cli sees the main classes of every library module (core, wire,
 * log, testkit, providers-extra, models, chat, server, replay) on its test classpath. See {@code
 * docs/architecture.md}, "API boundaries".
 */
class ArchitectureTest {
  private static final JavaClasses ALL =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.compactor");

  /**
   * The module of a class: the package segment after {@code dev.compactor}, e.g. {@code models}.
   */
  static String moduleOf(JavaClass c) {
    String[] parts = c.getPackageName().split("\\.");
    return parts.length >= 3 && parts[0].equals("dev") && parts[1].equals("compactor")
        ? parts[2]
        : null;
  }

  static boolean isInternal(JavaClass c) {
    return moduleOf(c) != null && ("." + c.getPackageName() + ".").contains(".internal.");
  }

  static final ArchRule INTERNAL_STAYS_IN_ITS_MODULE =
      classes()
          .should(
              new ArchCondition<JavaClass>("depend on internal packages of their own module only") {
                @Override
                public void check(JavaClass c, ConditionEvents events) {
                  for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass();
                    if (isInternal(target) && !moduleOf(target).equals(moduleOf(c))) {
                      events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                    }
                  }
                }
              });

  @Test
  void internalPackages_areUsedOnlyByTheirOwnModule() {
    INTERNAL_STAYS_IN_ITS_MODULE.check(ALL);
  }

  @Test
  void theRule_seesEveryLibraryModule_andTheInternalPackages() {
    // Guards the rule against passing vacuously on a partial import.
    for (String c :
        new String[] {
          "dev.compactor.core.message.Message",
          "dev.compactor.core.internal.CompactionApplier",
          "dev.compactor.wire.json.MessageCodec",
          "dev.compactor.log.store.StoredConversation",
          "dev.compactor.models.internal.HttpChatModel",
          "dev.compactor.models.openai.OpenAiResponsesModel",
          "dev.compactor.chat.ChatTaskService",
          "dev.compactor.server.CompactorServer",
          "dev.compactor.replay.Replayer",
          "dev.compactor.testkit.model.FakeModelServer",
          "dev.compactor.cli.Main"
        }) {
      assertThat(ALL.contain(c)).as(c).isTrue();
    }
  }

  @Test
  void theRule_reportsAClassOfAnotherModuleReachingIn() {
    JavaClasses fixture = new ClassFileImporter().importClasses(ReachesIntoAnotherModule.class);
    assertThat(INTERNAL_STAYS_IN_ITS_MODULE.evaluate(fixture).hasViolation()).isTrue();
    assertThat(INTERNAL_STAYS_IN_ITS_MODULE.evaluate(fixture).getFailureReport().toString())
        .contains("dev.compactor.models.internal.Requests");
  }
}
