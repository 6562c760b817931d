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
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
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

  /** Resolving with {@code text} written to ~/{@code name} as the {@code --config} file. */
  private ThrowingCallable resolvingConfig(String name, String text) throws Exception {
    Path config = file(name, text);
    return () -> resolve(env(), "--config", config.toString());
  }

  @Test
  void defaultsWithNothingConfigured() {
    ServeSettings s = resolve(env());
    assertThat(s.server().host()).isEqualTo("127.0.0.1");
    assertThat(s.server().port()).isEqualTo(8080);
    assertThat(s.server().maxBodyBytes()).isEqualTo(10L * 1024 * 1024);
    assertThat(s.db()).isEqualTo(dir.resolve("data/compactor/chats.db").toString());
    assertThat(s.timeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(s.server().modelTimeout()).isEqualTo(Duration.ofMinutes(2));
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
    // the proxy's summary models are called with it too
    assertThat(fromFiles.server().modelTimeout()).isEqualTo(Duration.ofSeconds(30));
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
    assertThatThrownBy(resolvingConfig("bad.toml", "[server]\nport = 70000\n"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("70000")
        .hasMessageContaining("[server] port in ~/bad.toml");
    assertThatThrownBy(() -> resolve(env("COMPACTOR_PORT", "http")))
        .hasMessageContaining("\"http\" from COMPACTOR_PORT");
    assertThatThrownBy(resolvingConfig("up.toml", "[upstreams.local]\napi_key_env = \"K\"\n"))
        .hasMessageContaining("upstream local needs a base URL")
        .hasMessageContaining("[upstreams.local] api_key_env in ~/up.toml");
    assertThatThrownBy(resolvingConfig("t.toml", "[server]\ntimeout = \"soon\"\n"))
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

  @Test
  void proxyPoliciesComeFromTheUpstreamTablesAndTheirModels() throws Exception {
    Path project =
        file(
            "proxy.toml",
            "[server]\nproxy_retention = \"12h\"\n"
                + "[upstreams.openai]\nbudget = 60000\nsummary_model = \"openai/gpt-4o-mini\"\n"
                + "[upstreams.openai.models.\"gpt-4o\"]\nbudget = 0.5\nreminder = true\n"
                + "target = 0.4\n"
                + "[upstreams.gpu]\nbase_url = \"http://10.0.0.7:8000/v1\"\nreminder = false\n");
    ServeSettings s = resolve(env(), "--config", project.toString());
    assertThat(s.server().proxyRetention()).isEqualTo(Duration.ofHours(12));
    var openai = s.server().upstreams().get("openai").proxy();
    assertThat(openai.budget().value()).isEqualTo("60000");
    assertThat(openai.budget().source()).isEqualTo("[upstreams.openai] budget in ~/proxy.toml");
    assertThat(openai.summaryModel()).isEqualTo("openai/gpt-4o-mini");
    var gpt4o = openai.forModel("gpt-4o");
    assertThat(gpt4o.budget().value()).isEqualTo("0.5");
    assertThat(gpt4o.budget().source())
        .isEqualTo("[upstreams.openai.models.\"gpt-4o\"] budget in ~/proxy.toml");
    assertThat(gpt4o.reminderOn()).isTrue();
    assertThat(gpt4o.target()).isEqualTo(0.4);
    assertThat(openai.target()).as("unset: the proxy's default").isNull();
    assertThat(gpt4o.summaryModel()).isEqualTo("openai/gpt-4o-mini"); // the upstream's
    assertThat(openai.forModel("gpt-4.1").budget().value()).isEqualTo("60000");
    assertThat(openai.forModel("gpt-4.1").reminderOn()).isFalse();
    assertThat(s.server().upstreams().get("gpu").proxy().reminder()).isFalse();
    // an --upstream of the same name keeps the file's policy
    ServeSettings flag =
        resolve(
            env(), "--config", project.toString(), "--upstream", "openai=http://127.0.0.1:9/v1");
    assertThat(flag.server().upstreams().get("openai").proxy()).isEqualTo(openai);
    // the flag beats the file; 0 keeps forever; the default is 7 days
    assertThat(
            resolve(env(), "--config", project.toString(), "--proxy-retention", "0")
                .server()
                .proxyRetention())
        .isZero();
    assertThat(resolve(env()).server().proxyRetention()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void badProxySettingsNameTheirValueAndSource() throws Exception {
    assertThatThrownBy(resolvingConfig("b.toml", "[upstreams.openai]\nbudget = 1.5\n"))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("\"1.5\"")
        .hasMessageContaining("[upstreams.openai] budget in ~/b.toml");
    assertThatThrownBy(
            resolvingConfig("m.toml", "[upstreams.openai.models.\"gpt-4o\"]\nbudget = \"lots\"\n"))
        .hasMessageContaining("\"lots\"")
        .hasMessageContaining("[upstreams.openai.models.\"gpt-4o\"] budget in ~/m.toml");
    assertThatThrownBy(resolvingConfig("r.toml", "[upstreams.openai]\nreminder = \"yes\"\n"))
        .hasMessageContaining("reminder \"yes\" from [upstreams.openai] reminder in ~/r.toml")
        .hasMessageContaining("true or false");
    assertThatThrownBy(resolvingConfig("g.toml", "[upstreams.openai]\ntarget = 1.5\n"))
        .hasMessageContaining("target \"1.5\" from [upstreams.openai] target in ~/g.toml")
        .hasMessageContaining("(0, 1]");
    assertThatThrownBy(
            resolvingConfig("h.toml", "[upstreams.openai.models.\"x\"]\ntarget = \"most\"\n"))
        .hasMessageContaining("target \"most\" from [upstreams.openai.models.\"x\"] target");
    assertThatThrownBy(
            resolvingConfig("s.toml", "[upstreams.openai]\nsummary_model = \"gpt-4o-mini\"\n"))
        .hasMessageContaining("\"gpt-4o-mini\" must be provider/model")
        .hasMessageContaining("[upstreams.openai] summary_model in ~/s.toml");
    assertThatThrownBy(resolvingConfig("t.toml", "[server]\nproxy_retention = \"a week\"\n"))
        .hasMessageContaining(
            "proxy retention \"a week\" from [server] proxy_retention in ~/t.toml");
    assertThatThrownBy(() -> resolve(env(), "--proxy-retention", "-1d"))
        .hasMessageContaining("\"-1d\" from --proxy-retention");
    assertThatThrownBy(resolvingConfig("n.toml", "[upstreams.openai]\nmodels = 3\n"))
        .hasMessageContaining("[upstreams.openai.models] in ~/n.toml must hold tables");
  }
}
