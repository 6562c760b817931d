package dev.compactor.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's library example compiles and runs exactly as written: its {@code java} block is
 * compiled against this module's class path (compactor-log and compactor-core), run in a fresh JVM
 * from the repository root without {@code COMPACTOR_*} variables, and what it prints must equal the
 * README's {@code prints} block that follows it — so the figures there are current.
 */
class ReadmeExampleTest {

  @Test
  void libraryExample_compilesRunsAndPrintsWhatTheReadmeSays(@TempDir Path tmp) throws Exception {
    Path root = repositoryRoot();
    String readme = Files.readString(root.resolve("README.md"));
    String section = readme.substring(readme.indexOf("## Library example"));
    String source = block(section, "```java\n");
    String expected = block(section.substring(section.indexOf("\nprints\n")), "```\n");

    Matcher m = Pattern.compile("public class (\\w+)").matcher(source);
    assertThat(m.find()).as("the example declares a public class").isTrue();
    String className = m.group(1);
    Path file = tmp.resolve(className + ".java");
    Files.writeString(file, source);

    String classPath = classPath();
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    int rc =
        javac.run(
            null,
            diagnostics,
            diagnostics,
            "-d",
            tmp.toString(),
            "-classpath",
            classPath,
            file.toString());
    assertThat(rc).as("javac: %s", diagnostics.toString(StandardCharsets.UTF_8)).isZero();

    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    ProcessBuilder pb =
        new ProcessBuilder(java.toString(), "-cp", tmp + File.pathSeparator + classPath, className)
            .directory(root.toFile())
            .redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("COMPACTOR_"));
    Process p = pb.start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    String printed = new String(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as("exit code; output:%n%s", printed).isZero();
    assertThat(printed).isEqualTo(expected);
  }

  /** The text between {@code opening} and the next fence. */
  private static String block(String text, String opening) {
    int start = text.indexOf(opening);
    assertThat(start).as("a block opened by %s", opening.strip()).isNotNegative();
    start += opening.length();
    int end = text.indexOf("```", start);
    return text.substring(start, end);
  }

  private static String classPath() {
    // Surefire may start the tests from a manifest-only jar; this property holds the real path.
    String cp = System.getProperty("surefire.test.class.path");
    if (cp == null || cp.isBlank()) {
      cp = System.getProperty("java.class.path");
    }
    List<String> entries = new ArrayList<>();
    for (String e : cp.split(File.pathSeparator)) {
      if (!e.isBlank()) {
        entries.add(e);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  private static Path repositoryRoot() throws IOException {
    Path p = Path.of("").toAbsolutePath();
    while (p != null
        && !Files.exists(p.resolve("README.md").getParent().resolve("compactor-core"))) {
      p = p.getParent();
    }
    assertThat(p).as("the repository root above %s", Path.of("").toAbsolutePath()).isNotNull();
    return p;
  }
}
