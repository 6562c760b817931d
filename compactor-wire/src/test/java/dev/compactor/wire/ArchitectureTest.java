package dev.compactor.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.compactor.testkit.ModuleArchitecture;
import org.junit.jupiter.api.Test;

/** compactor-wire stands on core and Jackson only: no HTTP, no files, no other module. */
class ArchitectureTest {
  private static final JavaClasses WIRE = ModuleArchitecture.mainClasses("dev.compactor.wire");

  @Test
  void wire_dependsOnCoreJacksonAndTheJdkOnly() {
    ModuleArchitecture.dependsOnlyOn(
            "dev.compactor.wire",
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
