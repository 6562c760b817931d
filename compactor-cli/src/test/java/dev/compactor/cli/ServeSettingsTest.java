package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.catalog.InvalidSettingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code compactor serve}'s settings: flag, then environment, then the files, then defaults. */
class ServeSettingsTest {
  @TempDir Path dir;

  private ServeSettings resolve(Map<String, String> env, String... args) {
    CommandLine cl = Main.newCommandLine(env);
    List<String> all = new ArrayList<>(List.of("serve"));
    all.addAll(List.of(args));
    CommandLine.ParseResult r = cl.parseArgs(all.toArray(String[]::new));
    ServeCommand c = (ServeCommand) r.subcommand().commandSpec().userObject();
    return ServeSettings.resolve(c, env);
  }

  private Map<String, String> env(String... more) {
    Map<String, String> env = new java.util.HashMap<>();
    env.put("HOME", dir.toString());
    env.put("XDG_CONFIG_HOME", dir.resolve("xdg").toString());
    env.put("XDG_DATA_HOME", dir.resolve("data").toString());
    for (int i = 0; i < more.length; i += 2) {
      env.put(more[i], more[i + 1]);
    }
    return env;
  }

  private Path file(String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }

  @Test
  void defaultsWithNothingConfigured() {
    ServeSettings s = resolve(env());
    assertThat(s.server().host()).isEqualTo("127.0.0.1");
    assertThat(s.server().port()).isEqualTo(8080);
    assertThat(s.server().maxBodyBytes()).isEqualTo(10L * 1024 * 1024);
    assertThat(s.db()).isEqualTo(dir.resolve("data/compactor/chats.db").toString());
    assertThat(s.timeout()).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void flagsWinOverTheEnvironmentWhichWinsOverTheFiles() throws Exception {
    file("xdg/compactor/config.toml", "[server]\nport = 7001\nhost = \"127.0.0.2\"\n");
    Path project =
        file(
            "project.toml",
            "[server]\nport = 7002\nmax_body_bytes = 2048\ntimeout = \"30s\"\n"
                + "[upstreams.gpu]\nbase_url = \"http://10.0.0.7:8000/v1\"\napi_key_env = \"GPU_KEY\"\n");
    ServeSettings fromFiles = resolve(env(), "--config", project.toString());
    assertThat(fromFiles.server().port()).isEqualTo(7002); // project over user
    assertThat(fromFiles.server().host())
        .isEqualTo("127.0.0.2"); // user where the project is silent
    assertThat(fromFiles.server().maxBodyBytes()).isEqualTo(2048);
    assertThat(fromFiles.timeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(fromFiles.server().upstreams().get("gpu").baseUrl())
        .isEqualTo("http://10.0.0.7:8000/v1");
    assertThat(fromFiles.server().upstreams().get("gpu").apiKeyEnv()).isEqualTo("GPU_KEY");
    ServeSettings fromEnv = resolve(env("COMPACTOR_PORT", "7003"), "--config", project.toString());
    assertThat(fromEnv.server().port()).isEqualTo(7003);
    assertThat(fromEnv.sources().get("port")).isEqualTo("COMPACTOR_PORT");
    ServeSettings fromFlag =
        resolve(
            env("COMPACTOR_PORT", "7003"),
            "--config",
            project.toString(),
            "--port",
            "7004",
            "--upstream",
            "gpu=http://10.0.0.8:8000/v1");
    assertThat(fromFlag.server().port()).isEqualTo(7004);
    // the flag's URL replaces the file's, the file's key variable stays
    assertThat(fromFlag.server().upstreams().get("gpu").baseUrl())
        .isEqualTo("http://10.0.0.8:8000/v1");
    assertThat(fromFlag.server().upstreams().get("gpu").apiKeyEnv()).isEqualTo("GPU_KEY");
  }

  @Test
  void badValuesNameTheirSource() throws Exception {
    Path project = file("bad.toml", "[server]\nport = 70000\n");
    assertThatThrownBy(() -> resolve(env(), "--config", project.toString()))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("70000")
        .hasMessageContaining("[server] port in ~/bad.toml");
    assertThatThrownBy(() -> resolve(env("COMPACTOR_PORT", "http")))
        .hasMessageContaining("\"http\" from COMPACTOR_PORT");
    Path up = file("up.toml", "[upstreams.local]\napi_key_env = \"K\"\n");
    assertThatThrownBy(() -> resolve(env(), "--config", up.toString()))
        .hasMessageContaining("upstream local needs a base URL")
        .hasMessageContaining("[upstreams.local] api_key_env in ~/up.toml");
    Path t = file("t.toml", "[server]\ntimeout = \"soon\"\n");
    assertThatThrownBy(() -> resolve(env(), "--config", t.toString()))
        .isInstanceOf(InvalidSettingException.class)
        .hasMessageContaining("soon")
        .hasMessageContaining("[server] timeout in ~/t.toml");
    assertThatThrownBy(() -> resolve(env(), "--config", dir.resolve("none.toml").toString()))
        .hasMessageContaining("--config")
        .hasMessageContaining("no such file");
  }

  @Test
  void unknownKeysAreReportedWithTheirPath() throws Exception {
    Path project =
        file(
            "typo.toml",
            "[server]\nprot = 1\n[upstreams.x]\nbase_url = \"http://h/v1\"\nkey = 1\n");
    CommandLine cl = Main.newCommandLine(env());
    java.io.StringWriter err = new java.io.StringWriter();
    cl.setErr(new java.io.PrintWriter(err, true));
    CommandLine.ParseResult r = cl.parseArgs("serve", "--config", project.toString());
    ServeSettings.resolve((ServeCommand) r.subcommand().commandSpec().userObject(), env());
    assertThat(err.toString())
        .contains("unknown setting [server] prot in ~/typo.toml")
        .contains("unknown setting [upstreams.x] key in ~/typo.toml");
  }
}
