package dev.compactor.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider in a separate jar, compiled at test time, is found by name through {@link
 * java.util.ServiceLoader} with no registration code: the plugin path of third-party providers.
 */
class ProviderRegistryPluginJarTest {

  @TempDir Path dir;

  @Test
  void providerInSeparateJar_isFoundByName_withoutRegistrationCode() throws Exception {
    Path jar = pluginJar("acme.compaction", "KeepLastTwo", "keep-last-two");
    try (URLClassLoader loader = loader(jar)) {
      ProviderRegistry registry = new ProviderRegistry(loader);

      ContextProvider p = registry.get("keep-last-two");

      assertThat(p.getClass().getName()).isEqualTo("acme.compaction.KeepLastTwo");
      assertThat(p.getClass().getClassLoader()).isSameAs(loader);
      assertThat(registry.list()).contains("keep-last-two", "mask");
      List<Message> messages = List.of(Message.user("a"), Message.user("b"), Message.user("c"));
      CompactionResult r = p.compress(messages, CompressionConfig.builder().build());
      assertThat(r.messages()).containsExactlyElementsOf(messages.subList(1, 3));
    }
  }

  @Test
  void twoJarsWithTheSameProviderName_failNamingBothClassesAndJars() throws Exception {
    Path a = pluginJar("acme.one", "Twin", "twin");
    Path b = pluginJar("acme.two", "Twin", "twin");
    try (URLClassLoader loader = loader(a, b)) {
      assertThatThrownBy(() -> new ProviderRegistry(loader))
          .isInstanceOf(CompactorException.class)
          .hasMessageContaining("duplicate context provider name \"twin\"")
          .hasMessageContaining("acme.one.Twin")
          .hasMessageContaining("acme.two.Twin")
          .hasMessageContaining(a.getFileName().toString())
          .hasMessageContaining(b.getFileName().toString());
    }
  }

  @Test
  void jarListingAMissingClass_failsNamingIt() throws Exception {
    Path jar = dir.resolve("broken.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("META-INF/services/" + ContextProvider.class.getName()));
      out.write("acme.Missing\n".getBytes(StandardCharsets.UTF_8));
      out.closeEntry();
    }
    try (URLClassLoader loader = loader(jar)) {
      assertThatThrownBy(() -> new ProviderRegistry(loader))
          .isInstanceOf(CompactorException.class)
          .hasMessageContaining("acme.Missing");
    }
  }

  private URLClassLoader loader(Path... jars) throws IOException {
    URL[] urls = new URL[jars.length];
    for (int i = 0; i < jars.length; i++) {
      urls[i] = jars[i].toUri().toURL();
    }
    return new URLClassLoader(urls, ContextProvider.class.getClassLoader());
  }

  /** Compiles a one-class provider against core and packs it with its services file. */
  private Path pluginJar(String pkg, String simpleName, String providerName) throws Exception {
    String source =
        """
        package %s;

        import dev.compactor.core.compaction.CompactionResult;
        import dev.compactor.core.compaction.CompressionConfig;
        import dev.compactor.core.compaction.ContextProvider;
        import dev.compactor.core.message.Message;
        import java.util.List;
        import java.util.Map;

        public final class %s implements ContextProvider {
          @Override
          public String name() {
            return "%s";
          }

          @Override
          public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
            return messages.size() > 2;
          }

          @Override
          public CompactionResult compress(List<Message> messages, CompressionConfig config) {
            List<Message> kept = messages.subList(Math.max(0, messages.size() - 2), messages.size());
            return CompactionResult.of(messages, kept, List.of(), Map.of());
          }
        }
        """
            .formatted(pkg, simpleName, providerName);
    Path work = Files.createDirectories(dir.resolve(pkg));
    Path src = work.resolve("src").resolve(pkg.replace('.', File.separatorChar));
    Files.createDirectories(src);
    Path file = src.resolve(simpleName + ".java");
    Files.writeString(file, source);
    Path classes = Files.createDirectories(work.resolve("classes"));

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertThat(javac).as("a JDK (not a JRE) runs the tests").isNotNull();
    int rc =
        javac.run(
            null,
            null,
            null,
            "--release",
            "17",
            "-classpath",
            coreClasspath(),
            "-d",
            classes.toString(),
            file.toString());
    assertThat(rc).as("javac exit code").isZero();

    Path jar = dir.resolve(pkg + ".jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> walk = Files.walk(classes)) {
      List<Path> files = new ArrayList<>(walk.filter(Files::isRegularFile).toList());
      for (Path f : files) {
        out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, out);
        out.closeEntry();
      }
      out.putNextEntry(new JarEntry("META-INF/services/" + ContextProvider.class.getName()));
      write(out, pkg + "." + simpleName + "\n");
      out.closeEntry();
    }
    return jar;
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Where core's classes are (target/classes in a build, a jar elsewhere). */
  private static String coreClasspath() throws URISyntaxException {
    return Path.of(
            ContextProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .toString();
  }
}
