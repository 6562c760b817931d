package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bundled strategies and third-party plugin jars from the plugin path. */
class PluginsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;
  private Path session;

  @BeforeEach
  void sample() {
    session = dir.resolve("s.jsonl");
    assertThat(
            CliRunner.run("sample", "--turns", "40", "--seed", "9", "--out", session.toString())
                .exitCode())
        .isZero();
  }

  /** A plugin jar with one provider, compiled here: it leaves the view as it is. */
  private Path pluginJar(String name) throws Exception {
    Path src = Files.createDirectories(dir.resolve("src/com/acme"));
    Files.writeString(
        src.resolve("SameProvider.java"),
        """
        package com.acme;

        import dev.compactor.core.compaction.CompactionResult;
        import dev.compactor.core.compaction.CompressionConfig;
        import dev.compactor.core.compaction.ContextProvider;
        import dev.compactor.core.message.Message;
        import java.util.List;

        public final class SameProvider implements ContextProvider {
          public String name() { return "%s"; }
          public boolean shouldCompress(List<Message> m, CompressionConfig c) { return false; }
          public CompactionResult compress(List<Message> m, CompressionConfig c) {
            return CompactionResult.unchanged(m);
          }
        }
        """
            .formatted(name));
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc =
        javac.run(
            null,
            null,
            null,
            "-classpath",
            System.getProperty("java.class.path"),
            "-d",
            classes.toString(),
            src.resolve("SameProvider.java").toString());
    assertThat(rc).as("javac").isZero();
    Path jar = Files.createDirectories(dir.resolve("plugins")).resolve("acme-same.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(
          new JarEntry("META-INF/services/dev.compactor.core.compaction.ContextProvider"));
      out.write("com.acme.SameProvider\n".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
      out.putNextEntry(new JarEntry("com/acme/SameProvider.class"));
      try (Stream<Path> s = Files.list(classes.resolve("com/acme"))) {
        out.write(
            Files.readAllBytes(
                s.filter(p -> p.toString().endsWith(".class")).findFirst().orElseThrow()));
      }
      out.closeEntry();
    }
    return jar;
  }

  @Test
  void providers_listsTheBundledStrategies() throws Exception {
    CliRunner r = CliRunner.run("providers", "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode all = JSON.readTree(r.out()).get("providers");
    assertThat(all.findValuesAsText("name"))
        .contains("trim", "mask", "summarize", "code-aware", "redundancy", "default");
    for (JsonNode p : all) {
      assertThat(p.get("source").asText()).isEqualTo("bundled");
    }
    CliRunner text = CliRunner.run("providers");
    assertThat(text.out()).contains("code-aware").contains("CodeAwareProvider (bundled)");
  }

  @Test
  void codeAwareAndRedundancy_compactFromTheCommandLine() throws Exception {
    for (String s : List.of("code-aware", "redundancy")) {
      CliRunner r =
          CliRunner.compact(session, dir.resolve(s), s, "--context-budget", "0.05", "--json");
      assertThat(r.exitCode())
          .as(s + ": " + r.err() + r.out())
          .isIn(0, CompactCommand.EXIT_OVER_BUDGET);
      JsonNode j = JSON.readTree(r.out());
      assertThat(j.get("strategy").asText()).isEqualTo(s);
      assertThat(j.get("invalid")).isEmpty();
      assertThat(j.get("tokensAfter").asLong()).as(s).isLessThan(j.get("tokensBefore").asLong());
    }
  }

  @Test
  void aPluginJar_onThePluginPathOrInTheEnvironment_isListedAndUsed() throws Exception {
    Path jar = pluginJar("same");
    CliRunner listed =
        CliRunner.run("providers", "--plugin-path", jar.getParent().toString(), "--json");
    assertThat(listed.exitCode()).as(listed.err()).isZero();
    JsonNode same = null;
    for (JsonNode p : JSON.readTree(listed.out()).get("providers")) {
      if (p.get("name").asText().equals("same")) {
        same = p;
      }
    }
    assertThat(same).isNotNull();
    assertThat(same.get("className").asText()).isEqualTo("com.acme.SameProvider");
    assertThat(same.get("source").asText()).isEqualTo(jar.toAbsolutePath().toString());

    CliRunner used =
        CliRunner.compact(
            Map.of("HOME", dir.toString(), PluginOptions.ENV, jar.toString()),
            session,
            dir.resolve("c"),
            "same",
            "--context-budget",
            "0.05",
            "--json");
    // The plugin ran: it removed nothing, so the view is still over the budget.
    assertThat(used.exitCode()).as(used.err()).isEqualTo(CompactCommand.EXIT_OVER_BUDGET);
    JsonNode j = JSON.readTree(used.out());
    assertThat(j.get("reason").asText()).contains("same found nothing it may remove or shorten");
    assertThat(j.get("hints").toString())
        .contains("--strategy summarize")
        .doesNotContain("/compact");

    CliRunner without = CliRunner.compact(session, dir.resolve("d"), "same");
    assertThat(without.exitCode()).isEqualTo(CompactCommand.EXIT_ERROR);
    assertThat(without.err()).contains("unknown context provider \"same\"");
  }

  @Test
  void aMissingPluginPathEntry_isNamedWithItsSource() {
    CliRunner r = CliRunner.run("providers", "--plugin-path", dir.resolve("nope.jar").toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("nope.jar").contains("--plugin-path").contains("does not exist");
    CliRunner e =
        CliRunner.runWithEnv(
            Map.of(PluginOptions.ENV, dir.resolve("gone").toString()), "providers");
    assertThat(e.exitCode()).isEqualTo(2);
    assertThat(e.err()).contains("gone").contains(PluginOptions.ENV);
  }
}
