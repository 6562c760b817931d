package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoCommandTest {
  @Test
  void playsASessionThroughThePolicyAndPricesItWithAndWithoutCompaction(@TempDir Path dir)
      throws Exception {
    Path chart = dir.resolve("demo.svg");
    CliRunner r =
        CliRunner.run("demo", "--turns", "80", "--window", "16384", "--chart", chart.toString());
    assertThat(r.exitCode()).as(r.err()).isZero();
    String out = r.out();
    assertThat(out).contains("call    1 ").contains("┌ compaction: ");
    assertThat(out).contains("every one of them is recoverable exactly from the master log");
    // the replay table has both rows, and compaction is cheaper than none
    assertThat(out).containsPattern("(?m)^none\\s+\\d+").containsPattern("(?m)^auto\\s+\\d+");
    assertThat(out).containsPattern("compacted against [0-9.]+ USD uncompacted \\(0\\.\\d+×\\)");
    assertThat(out).contains("chart: " + chart.toAbsolutePath());
    assertThat(Files.readString(chart)).contains("<svg");
  }

  @Test
  void badValuesAreNamed() {
    CliRunner r = CliRunner.run("demo", "--turns", "3");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--turns 3");
    CliRunner w = CliRunner.run("demo", "--chart", "/no/such/dir/x.svg");
    assertThat(w.exitCode()).isEqualTo(2);
    assertThat(w.err()).contains("--chart");
  }
}
