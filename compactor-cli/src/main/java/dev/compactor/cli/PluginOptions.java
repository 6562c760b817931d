package dev.compactor.cli;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine.Option;

/**
 * Where the compaction strategies come from: the ones bundled with the command (trim, mask,
 * summarize, code-aware, redundancy) and third-party plugin jars. A plugin jar lists its {@link
 * ContextProvider} classes in {@code
 * META-INF/services/dev.compactor.core.compaction.ContextProvider} and is found on the plugin path:
 * {@code --plugin-path}, else {@code COMPACTOR_PLUGIN_PATH}, a list of jars and directories (every
 * {@code *.jar} in them) separated by {@code :} ({@code ;} on Windows).
 */
final class PluginOptions {
  static final String ENV = "COMPACTOR_PLUGIN_PATH";

  @Option(
      names = "--plugin-path",
      paramLabel = "PATH",
      description =
          "Plugin jars, or directories of them, separated by ':' (';' on Windows), that add"
              + " strategies (ContextProvider classes listed in META-INF/services). Default: $"
              + ENV
              + ".")
  String pluginPath;

  /** The plugin path and where it came from, or null when none is set. */
  private String[] path(Map<String, String> env) {
    if (pluginPath != null) {
      return new String[] {pluginPath, "--plugin-path"};
    }
    String fromEnv = env.get(ENV);
    return fromEnv == null || fromEnv.isBlank() ? null : new String[] {fromEnv, ENV};
  }

  /**
   * The registry of every bundled strategy and every one the plugin path adds.
   *
   * @throws CompactorException naming the entry and its source when a plugin path entry does not
   *     exist or is neither a jar nor a directory, and when a plugin cannot be loaded or reuses a
   *     name (the message names both providers and their jars)
   */
  ProviderRegistry registry(Map<String, String> env) {
    ClassLoader own = PluginOptions.class.getClassLoader();
    String[] p = path(env);
    if (p == null) {
      return new ProviderRegistry(own);
    }
    List<URL> jars = jars(p[0], p[1]);
    if (jars.isEmpty()) {
      return new ProviderRegistry(own);
    }
    // Kept open for the life of the command: the providers' classes load lazily from it.
    URLClassLoader loader = new URLClassLoader(jars.toArray(URL[]::new), own);
    return new ProviderRegistry(loader);
  }

  private static List<URL> jars(String path, String source) {
    List<URL> out = new ArrayList<>();
    for (String entry : path.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path e = Path.of(entry.strip());
      if (Files.isDirectory(e)) {
        try (Stream<Path> s = Files.list(e)) {
          s.filter(f -> f.getFileName().toString().endsWith(".jar"))
              .filter(Files::isRegularFile)
              .sorted()
              .forEach(f -> out.add(url(f)));
        } catch (IOException ex) {
          throw new CompactorException(
              "cannot list plugin directory " + e + " (from " + source + "): " + ex.getMessage());
        }
      } else if (Files.isRegularFile(e) && entry.strip().endsWith(".jar")) {
        out.add(url(e));
      } else {
        throw new CompactorException(
            "plugin path entry \""
                + entry
                + "\" (from "
                + source
                + ") "
                + (Files.exists(e) ? "is neither a .jar file nor a directory" : "does not exist"));
      }
    }
    return out;
  }

  private static URL url(Path p) {
    try {
      return p.toAbsolutePath().normalize().toUri().toURL();
    } catch (MalformedURLException e) {
      throw new CompactorException("cannot use plugin jar " + p + ": " + e.getMessage());
    }
  }

  /**
   * Where a provider class comes from: {@code bundled} for the command's own jar (or class path),
   * else the plugin jar's path.
   */
  static String origin(ContextProvider p) {
    ClassLoader cl = p.getClass().getClassLoader();
    URL theirs = location(p.getClass());
    if (cl == null || cl == PluginOptions.class.getClassLoader() || theirs == null) {
      return "bundled";
    }
    try {
      return Path.of(theirs.toURI()).toString();
    } catch (URISyntaxException | IllegalArgumentException e) {
      return theirs.toString();
    }
  }

  private static URL location(Class<?> type) {
    CodeSource cs = type.getProtectionDomain().getCodeSource();
    return cs == null ? null : cs.getLocation();
  }
}
