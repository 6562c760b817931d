package dev.compactor.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The overhead benchmark's harness on a small workload (no figure is checked): every proxied turn
 * continued its stored conversation without compacting, and both modes made every call.
 */
class ProxyOverheadBenchmarkTest {
  @ParameterizedTest
  @ValueSource(strings = {"fake", "fake --stream", "minimal", "minimal --stream"})
  void everyTurnIsMadeAndEveryProxiedTurnContinuesItsConversation(String upstream)
      throws Exception {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "--clients",
                "2",
                "--rounds",
                "1",
                "--warmup-rounds",
                "0",
                "--turns",
                "3",
                "--messages",
                "20",
                "--tokens",
                "3000",
                "--upstream"));
    args.addAll(Arrays.asList(upstream.split(" ")));
    String out = run(args.toArray(String[]::new));
    assertThat(row(out, "direct")).as(out).containsExactly("direct", "6", "0");
    assertThat(row(out, "proxy")).as(out).containsExactly("proxy", "6", "0");
    assertThat(out)
        .contains("a first timed turn, as the proxy counted it: ")
        .contains(", 20 items");
    assertThat(out).doesNotContain("FAILED").doesNotContain("failures the proxy logged");
  }

  @Test
  void badArgumentsAreNamed() {
    assertThatThrownBy(() -> ProxyOverheadBenchmark.parse(new String[] {"--upstream", "openai"}))
        .hasMessageContaining("--upstream")
        .hasMessageContaining("openai");
    assertThatThrownBy(() -> ProxyOverheadBenchmark.parse(new String[] {"--turns", "0"}))
        .hasMessageContaining("--turns must be at least 1, got 0");
  }

  /** Mode, calls and failed of a mode's row in the final table. */
  private static List<String> row(String out, String mode) {
    return out.lines()
        .filter(l -> l.startsWith("| " + mode + " |"))
        .map(l -> l.split("\\|"))
        .map(c -> List.of(c[1].strip(), c[2].strip(), c[c.length - 1].strip()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row " + mode + " in\n" + out));
  }

  private static String run(String[] args) throws Exception {
    PrintStream was = System.out;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      ProxyOverheadBenchmark.main(args);
    } finally {
      System.setOut(was);
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
