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
import dev.compactor.core.undeclared.OutsideTheApiTable;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * API boundaries between the modules. Each library module declares its API packages in {@link
 * #API}; every other package of it has an {@code internal} segment ({@code
 * dev.compactor.models.internal}, {@code dev.compactor.core.internal}, …). A class of one module
 * depends on another module only through that module's API packages, never on an application module
 * (the CLI, the benchmarks). A class's module is the package segment after {@code dev.compactor}
 * ({@code models} for {@code dev.compactor.models.openai}). Checked here because compactor-cli sees
 * the main classes of every library module (core, wire, log, testkit, providers-extra, models,
 * chat, server, replay) on its test classpath; the adapters, which it does not see, check the same
 * in their own {@code ArchitectureTest}. See {@code docs/architecture.md}, "API boundaries", which
 * lists the same packages.
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

  /**
   * The API packages of each library module (relative to {@code dev.compactor}); an application
   * module ({@code cli}, {@code bench}) has none. Adding a package to a module means adding it here
   * (API) or giving it an {@code internal} segment (implementation).
   */
  static final Map<String, Set<String>> API =
      Map.ofEntries(
          Map.entry(
              "core",
              Set.of(
                  "core",
                  "core.budget",
                  "core.catalog",
                  "core.compaction",
                  "core.compaction.mask",
                  "core.compaction.summary",
                  "core.compaction.text",
                  "core.compaction.trim",
                  "core.message",
                  "core.model",
                  "core.policy",
                  "core.recovery",
                  "core.sample",
                  "core.tokens",
                  "core.view")),
          Map.entry(
              "wire",
              Set.of(
                  "wire",
                  "wire.json",
                  "wire.openai",
                  "wire.anthropic",
                  "wire.usage",
                  "wire.tools",
                  "wire.error")),
          Map.entry("log", Set.of("log.imports", "log.store")),
          Map.entry("testkit", Set.of("testkit", "testkit.corpus", "testkit.model")),
          Map.entry("providers", Set.of("providers.codeaware", "providers.redundancy")),
          Map.entry("models", Set.of("models", "models.openai", "models.anthropic")),
          Map.entry(
              "chat",
              Set.of(
                  "chat",
                  "chat.auth",
                  "chat.base",
                  "chat.json",
                  "chat.memory",
                  "chat.settings",
                  "chat.store")),
          Map.entry("server", Set.of("server", "server.inspect", "server.proxy")),
          Map.entry("replay", Set.of("replay", "replay.cost", "replay.report", "replay.strategy")),
          Map.entry("cli", Set.of()),
          Map.entry("bench", Set.of()));

  /** Modules that are programs, not libraries: no other module may depend on them. */
  static final Set<String> APPLICATIONS = Set.of("cli", "bench");

  /** {@code dev.compactor.core.policy} → {@code core.policy}. */
  static String relative(String packageName) {
    return packageName.substring("dev.compactor.".length());
  }

  static boolean isInternal(JavaClass c) {
    return moduleOf(c) != null && ("." + c.getPackageName() + ".").contains(".internal.");
  }

  /** Whether another module may depend on {@code c}: it is in an API package of its module. */
  static boolean isApi(JavaClass c) {
    String module = moduleOf(c);
    return module != null
        && API.getOrDefault(module, Set.of()).contains(relative(c.getPackageName()));
  }

  /** The rule that every class should {@code description}, as {@code check} decides. */
  static ArchRule classesShould(String description, BiConsumer<JavaClass, ConditionEvents> check) {
    return classes()
        .should(
            new ArchCondition<JavaClass>(description) {
              @Override
              public void check(JavaClass c, ConditionEvents events) {
                check.accept(c, events);
              }
            });
  }

  static final ArchRule OTHER_MODULES_USE_THE_API_ONLY =
      classesShould(
          "depend on another module through its API packages only",
          (c, events) -> {
            String module = moduleOf(c);
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
              JavaClass target = d.getTargetClass();
              String targetModule = moduleOf(target);
              if (targetModule != null
                  && !targetModule.equals(module)
                  && !isApi(target.getBaseComponentType())) {
                events.add(
                    SimpleConditionEvent.violated(
                        d,
                        d.getDescription()
                            + ": "
                            + target.getPackageName()
                            + " is not an API package of module "
                            + targetModule
                            + " (ArchitectureTest.API)"));
              }
            }
          });

  static final ArchRule INTERNAL_STAYS_IN_ITS_MODULE =
      classesShould(
          "depend on internal packages of their own module only",
          (c, events) -> {
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
              JavaClass target = d.getTargetClass();
              if (isInternal(target) && !moduleOf(target).equals(moduleOf(c))) {
                events.add(SimpleConditionEvent.violated(d, d.getDescription()));
              }
            }
          });

  /** A package of a library module is API (listed in {@link #API}) or implementation (internal). */
  static final ArchRule EVERY_PACKAGE_IS_API_OR_INTERNAL =
      classesShould(
          "be in a declared API package of their module or an internal package",
          (c, events) -> {
            String module = moduleOf(c);
            if (module == null || APPLICATIONS.contains(module)) {
              return;
            }
            if (!isApi(c) && !isInternal(c)) {
              events.add(
                  SimpleConditionEvent.violated(
                      c,
                      c.getName()
                          + ": package "
                          + c.getPackageName()
                          + " of module "
                          + module
                          + " is neither listed in ArchitectureTest.API nor internal"));
            }
          });

  @Test
  void internalPackages_areUsedOnlyByTheirOwnModule() {
    INTERNAL_STAYS_IN_ITS_MODULE.check(ALL);
  }

  @Test
  void otherModules_dependOnAModuleThroughItsApiPackagesOnly() {
    OTHER_MODULES_USE_THE_API_ONLY.check(ALL);
  }

  @Test
  void everyPackageOfALibraryModule_isApiOrInternal() {
    EVERY_PACKAGE_IS_API_OR_INTERNAL.check(ALL);
  }

  @Test
  void everyDeclaredApiPackage_exists() {
    // Keeps the table (and docs/architecture.md, which lists the same) from naming stale packages;
    // the adapters and the benchmarks are not on this classpath and are not in the table.
    Set<String> seen = new TreeSet<>();
    for (JavaClass c : ALL) {
      if (moduleOf(c) != null) {
        seen.add(relative(c.getPackageName()));
      }
    }
    for (Map.Entry<String, Set<String>> e : API.entrySet()) {
      assertThat(seen).as("API packages of module " + e.getKey()).containsAll(e.getValue());
    }
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
          "dev.compactor.chat.internal.SummaryCompactor",
          "dev.compactor.replay.internal.Facts",
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
    assertThat(OTHER_MODULES_USE_THE_API_ONLY.evaluate(fixture).getFailureReport().toString())
        .contains("dev.compactor.models.internal is not an API package of module models");
  }

  @Test
  void theRules_reportAnUndeclaredPackage_andADependencyOnAnApplication() {
    JavaClasses fixture = new ClassFileImporter().importClasses(OutsideTheApiTable.class);
    assertThat(EVERY_PACKAGE_IS_API_OR_INTERNAL.evaluate(fixture).getFailureReport().toString())
        .contains("package dev.compactor.core.undeclared of module core is neither listed");
    assertThat(OTHER_MODULES_USE_THE_API_ONLY.evaluate(fixture).getFailureReport().toString())
        .contains("dev.compactor.cli is not an API package of module cli");
    assertThat(isApi(ALL.get("dev.compactor.core.message.Message"))).isTrue();
    assertThat(isApi(ALL.get("dev.compactor.chat.internal.SummaryCompactor"))).isFalse();
  }
}
