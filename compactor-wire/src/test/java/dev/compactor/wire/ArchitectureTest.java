package dev.compactor.wire;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** compactor-wire stands on core and Jackson only: no HTTP, no files, no other module. */
class ArchitectureTest {
  private static final JavaClasses WIRE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.compactor.wire");

  @Test
  void wire_dependsOnCoreJacksonAndTheJdkOnly() {
    classes()
        .that()
        .resideInAPackage("dev.compactor.wire..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.compactor.wire..",
            "dev.compactor.core..",
            "com.fasterxml.jackson..",
            "java.lang..",
            "java.util..",
            "java.time..",
            "java.math..",
            "java.io..",
            // byte and char buffers and charsets (strict UTF-8 decoding), not java.nio.file
            "java.nio",
            "java.nio.charset..")
        .check(WIRE);
  }

  @Test
  void wire_importsClassesAtAll() {
    // Guards the rule above against passing vacuously on an empty import.
    assertThat(WIRE.contain("dev.compactor.wire.json.MessageCodec")).isTrue();
    assertThat(WIRE.contain("dev.compactor.wire.openai.ChatCompletionsMessages")).isTrue();
  }
}
