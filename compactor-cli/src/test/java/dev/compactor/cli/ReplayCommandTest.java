package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayCommandTest {
  private static final Path SAMPLE = Path.of("..", "examples", "agent-session.jsonl");
  private static final ObjectMapper MAPPER = new ObjectMapper();
  @TempDir Path dir;

  /**
   * Replays the sample in a 16,000-token window with 2,000 tokens of output, and {@code options}.
   */
  private static CliRunner replaySample(String... options) {
    List<String> args =
        new ArrayList<>(
            List.of("replay", SAMPLE.toString(), "--window", "16000", "--max-output", "2000"));
    args.addAll(List.of(options));
    return CliRunner.run(args.toArray(String[]::new));
  }

  @Test
  void replay_strategiesSeparatedByCommas_sameAsRepeated() {
    CliRunner r = replaySample("--strategy", "none,mask", "--quiet");
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).containsPattern("(?m)^none ").containsPattern("(?m)^mask ");
    // In-process the console is no terminal: no progress bar, so no escape sequences on stderr.
    CliRunner piped = replaySample("--strategy", "none");
    assertThat(piped.exitCode()).as(piped.err()).isZero();
    assertThat(piped.err()).doesNotContain("\033[K").doesNotContain("\r");
  }

  @Test
  void replay_strategiesSideBySide_tableJsonAndChart() throws Exception {
    Files.createDirectories(dir.resolve("out"));
    Path json = dir.resolve("out/replay.json");
    Path chart = dir.resolve("out/replay.html");
    CliRunner r =
        replaySample(
            "--strategy",
            "none",
            "--strategy",
            "auto",
            "--json",
            json.toString(),
            "--chart",
            chart.toString());
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("window 16,000, output 2,000, budget 13,000")
        .contains("strategy", "recall", "none", "auto");
    JsonNode root = MAPPER.readTree(json.toFile());
    JsonNode auto = root.path("totals").path("auto");
    assertThat(auto.path("calls").asLong()).isPositive();
    // Fewer, not zero: two tool outputs of the sample exceed the whole budget, and no policy step
    // shrinks the newest step (the overflow recovery's job).
    assertThat(auto.path("overWindowCalls").asLong())
        .isLessThan(root.path("totals").path("none").path("overWindowCalls").asLong());
    assertThat(auto.path("invalidViews").asLong()).isZero();
    assertThat(auto.path("relativeToNone").path("inputTokens").asDouble()).isLessThan(1.0);
    assertThat(root.path("totals").path("none").path("recall").asDouble()).isEqualTo(1.0);
    assertThat(Files.readString(chart)).contains("<svg").contains("polyline");
  }

  @Test
  void replay_throughProxy_inBothShapes_measuresWhatTheFakeProviderReceived() throws Exception {
    Path json = dir.resolve("proxy.json");
    CliRunner r =
        replaySample(
            "--through-proxy",
            "--proxy-api",
            "openai,anthropic",
            "--quiet",
            "--json",
            json.toString());
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out())
        .contains("none", "proxy-anthropic", "through the proxy:", "proxy-anthropic:");
    JsonNode root = MAPPER.readTree(json.toFile());
    JsonNode none = root.path("totals").path("none");
    for (String[] shape :
        List.of(
            new String[] {"proxy", "throughProxy"},
            new String[] {"proxy-anthropic", "throughProxyAnthropic"})) {
      JsonNode proxy = root.path("totals").path(shape[0]);
      JsonNode upstream = root.path(shape[1]);
      long calls = proxy.path("calls").asLong();
      assertThat(calls).as(shape[0]).isPositive().isEqualTo(none.path("calls").asLong());
      assertThat(upstream.path("calls").asLong()).isEqualTo(calls);
      // One request per call, plus one per overflow the provider refused and the proxy recovered.
      assertThat(upstream.path("upstreamRequests").asLong())
          .isEqualTo(calls + upstream.path("refusedOverWindow").asLong());
      assertThat(upstream.path("refusedInvalid").asLong()).as(shape[0]).isZero();
      assertThat(upstream.path("passthroughs").asLong()).isZero();
      assertThat(proxy.path("invalidViews").asLong()).isZero();
      assertThat(proxy.path("compactions").asLong()).as(shape[0]).isPositive();
      assertThat(proxy.path("inputTokens").asLong()).isLessThan(none.path("inputTokens").asLong());
      assertThat(proxy.path("overWindowCalls").asLong())
          .isLessThan(none.path("overWindowCalls").asLong());
      // the cache reads the replay priced are those of the bytes the provider received
      assertThat(upstream.path("byteCachedTokens").asLong())
          .as(shape[0])
          .isEqualTo(proxy.path("cachedTokens").asLong())
          .isPositive();
    }
  }

  @Test
  void replay_windowWithoutTheBenchJar_failsSayingHowToRunIt() {
    CliRunner r = CliRunner.run("replay", SAMPLE.toString(), "--strategy", "window", "--quiet");
    assertRefused(
        r,
        "compactor-bench",
        "java -cp compactor-bench/target/benchmarks.jar dev.compactor.cli.Main replay");
  }

  @Test
  void replay_badInputs_failWithAClearMessage() {
    CliRunner missing = CliRunner.run("replay", dir.resolve("nope.json").toString());
    assertRefused(missing, "no such file or directory");
    CliRunner unknown = CliRunner.run("replay", SAMPLE.toString(), "--strategy", "magic");
    assertThat(unknown.err()).contains("unknown replay strategy \"magic\"");
    CliRunner budget = CliRunner.run("replay", SAMPLE.toString(), "--context-budget", "0");
    assertRefused(budget, "\"0\"");
    CliRunner chart = CliRunner.run("replay", SAMPLE.toString(), "--chart", "x.gif");
    assertThat(chart.err()).contains(".png, .html or .svg");
    CliRunner api = CliRunner.run("replay", SAMPLE.toString(), "--proxy-api", "anthropic");
    assertRefused(api, "--proxy-api needs --through-proxy");
    CliRunner shape =
        CliRunner.run("replay", SAMPLE.toString(), "--through-proxy", "--proxy-api", "grpc");
    assertRefused(shape, "--proxy-api grpc", "openai or anthropic");
  }

  @Test
  void replay_anUnreadableFile_isReportedAndSkipped_withASummary() throws Exception {
    Path bad = Files.writeString(dir.resolve("broken.json"), "{\"not\": \"a transcript\"}");
    CliRunner r = CliRunner.run("replay", SAMPLE.toString(), bad.toString(), "--quiet");
    assertThat(r.exitCode()).as(r.err()).isEqualTo(1);
    assertThat(r.out())
        .contains("1 file(s)")
        .contains("1 of 2 file(s) could not be read and were skipped")
        .contains("broken.json");

    CliRunner none = CliRunner.run("replay", bad.toString(), "--quiet");
    assertRefused(none, "no file could be read", "broken.json");
  }

  @Test
  void replay_maxOutputAtLeastTheWindow_isRefused() {
    CliRunner r =
        CliRunner.run("replay", SAMPLE.toString(), "--max-output", "999999999", "--quiet");
    assertRefused(
        r, "max output \"999999999\" from --max-output", "smaller than the context window");
  }

  @Test
  void replay_outputInAMissingDirectory_isRefusedBeforeReplaying() {
    Path json = dir.resolve("no/such/dir/r.json");
    CliRunner r = CliRunner.run("replay", SAMPLE.toString(), "--json", json.toString(), "--quiet");
    assertRefused(r, "--json", "does not exist");
    assertThat(dir.resolve("no")).doesNotExist();
  }

  /** The command was refused as a usage error (exit 2) with each of {@code says} in its stderr. */
  private static void assertRefused(CliRunner r, String... says) {
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains(says);
  }
}
