package dev.compactor.cli.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Where the configuration files are.
 *
 * @param projectFile the project's {@code compactor.toml}
 * @param userFile the user's {@code config.toml}
 * @param home the user's home directory, used to show paths as {@code ~/…} in messages
 */
public record ConfigLocations(Path projectFile, Path userFile, Path home) {
  public static final String PROJECT_FILE = "compactor.toml";

  public ConfigLocations {
    Objects.requireNonNull(projectFile, "projectFile");
    Objects.requireNonNull(userFile, "userFile");
    Objects.requireNonNull(home, "home");
  }

  /**
   * The standard locations: {@code <projectDir>/compactor.toml}, and {@code
   * $XDG_CONFIG_HOME/compactor/config.toml} when {@code XDG_CONFIG_HOME} is set and not empty, else
   * {@code <home>/.config/compactor/config.toml}, home being {@code HOME} from {@code env} or, when
   * unset, the {@code user.home} system property.
   *
   * @param projectDir the project directory (usually the working directory)
   * @param env the environment, e.g. {@code System.getenv()}
   */
  public static ConfigLocations standard(Path projectDir, Map<String, String> env) {
    String homeVar = env.get("HOME");
    Path home =
        homeVar != null && !homeVar.isBlank()
            ? Path.of(homeVar)
            : Path.of(System.getProperty("user.home"));
    String xdg = env.get("XDG_CONFIG_HOME");
    Path configDir = xdg != null && !xdg.isBlank() ? Path.of(xdg) : home.resolve(".config");
    return new ConfigLocations(
        projectDir.resolve(PROJECT_FILE),
        configDir.resolve("compactor").resolve("config.toml"),
        home);
  }

  /** A path as shown in messages: {@code ~/…} under the home directory, else as given. */
  public String display(Path path) {
    Path abs = path.toAbsolutePath().normalize();
    Path h = home.toAbsolutePath().normalize();
    if (abs.startsWith(h) && !abs.equals(h)) {
      return "~/" + h.relativize(abs).toString().replace('\\', '/');
    }
    return path.toString();
  }
}
