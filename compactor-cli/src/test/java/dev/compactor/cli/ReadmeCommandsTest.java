package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The README's command list and exit codes match what {@code --help} says. */
class ReadmeCommandsTest {

  private static String commandSection() throws Exception {
    Path readme = Path.of("..", "README.md");
    String all = Files.readString(readme);
    int from = all.indexOf("## The command line");
    int to = all.indexOf("\n## ", from + 1);
    assertThat(from).as("README has a command line section").isNotNegative();
    return all.substring(from, to < 0 ? all.length() : to);
  }

  /** Every command that runs (not only prints help), with its path, e.g. "task call". */
  private static void leaves(
      CommandLine cl, String path, List<Map.Entry<String, CommandLine>> out) {
    if (cl.getSubcommands().isEmpty()) {
      out.add(Map.entry(path, cl));
    }
    cl.getSubcommands()
        .forEach((name, sub) -> leaves(sub, path.isEmpty() ? name : path + " " + name, out));
  }

  @Test
  void everyCommandAndOption_isInTheReadmeCommandList() throws Exception {
    String section = commandSection();
    List<Map.Entry<String, CommandLine>> commands = new ArrayList<>();
    leaves(Main.newCommandLine(Map.of()), "", commands);
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, CommandLine> c : commands) {
      String usage = "./compactor " + c.getKey();
      int at = section.indexOf(usage + " ");
      if (at < 0) {
        missing.add(usage);
        continue;
      }
      int end = section.indexOf("\n./compactor ", at + 1);
      int block = section.indexOf("```", at);
      String line = section.substring(at, end < 0 || end > block ? block : end);
      for (OptionSpec o : c.getValue().getCommandSpec().options()) {
        if (o.usageHelp() || o.versionHelp()) {
          continue;
        }
        if (!line.contains(o.longestName())) {
          missing.add(usage + " " + o.longestName());
        }
      }
    }
    assertThat(missing).as("missing from the README's command list").isEmpty();
  }

  @Test
  void everyCommandsExitCodes_areInItsHelp_andItsReadmeRow() throws Exception {
    String section = commandSection();
    List<Map.Entry<String, CommandLine>> commands = new ArrayList<>();
    leaves(Main.newCommandLine(Map.of()), "", commands);
    for (Map.Entry<String, CommandLine> c : commands) {
      Map<String, String> codes = c.getValue().getCommandSpec().usageMessage().exitCodeList();
      assertThat(codes).as(c.getKey() + " --help lists exit codes").isNotEmpty();
      String row =
          section
              .lines()
              .filter(l -> l.startsWith("| ") && l.contains("`" + c.getKey() + "`"))
              .findFirst()
              .orElse(null);
      assertThat(row).as("README exit code row of " + c.getKey()).isNotNull();
      String[] cells = row.split("\\|", -1);
      for (String code : codes.keySet()) {
        int col = Integer.parseInt(code.strip()) + 2;
        assertThat(cells.length).isGreaterThan(col);
        assertThat(cells[col].strip())
            .as("README: what exit code " + code + " of " + c.getKey() + " means")
            .isNotEmpty();
      }
    }
    assertThat(CliRunner.run("compact", "--help").out())
        .contains("Exit codes:")
        .contains(CompactCommand.EXIT_OVER_BUDGET + "   not within the budget");
  }
}
