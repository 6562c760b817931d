package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A run of one subcommand builds only that subcommand's command line ({@link Main#commandLineFor});
 * it must be the same command as in the whole command line: the same help, the same errors, the
 * same exit codes.
 */
class SubcommandCommandLineTest {
  private static String usage(CommandLine cl) {
    StringWriter w = new StringWriter();
    cl.usage(new PrintWriter(w), CommandLine.Help.Ansi.OFF);
    return w.toString();
  }

  private static String run(CommandLine cl, String... args) {
    CliRunner r = CliRunner.run(cl, args);
    return r.exitCode() + "\n" + r.out() + "\n" + r.err();
  }

  @Test
  void everySubcommand_hasTheSameHelpAndNestedCommands_asInTheWholeCommandLine() {
    CommandLine whole = Main.newCommandLine(Map.of());
    assertThat(whole.getSubcommands()).isNotEmpty();
    whole
        .getSubcommands()
        .forEach(
            (name, full) -> {
              CommandLine root = Main.forSubcommand(name, Map.of());
              assertThat(root).as(name).isNotNull();
              assertThat(root.getSubcommands()).as(name).containsOnlyKeys(full.getCommandName());
              CommandLine lazy = root.getSubcommands().get(full.getCommandName());
              assertThat(usage(lazy)).as("help of " + name).isEqualTo(usage(full));
              assertThat(lazy.getSubcommands().keySet())
                  .as("nested commands of " + name)
                  .isEqualTo(full.getSubcommands().keySet());
              full.getSubcommands()
                  .forEach(
                      (n, nested) ->
                          assertThat(usage(lazy.getSubcommands().get(n)))
                              .as("help of " + name + " " + n)
                              .isEqualTo(usage(nested)));
            });
  }

  @Test
  void errorsAndHelpRuns_areTheSame() {
    String[][] runs = {
      {"inspect", "--bogus"},
      {"inspect", "--help"},
      {"compact", "--strategy", "bogus", "x.jsonl"},
      {"keys", "create", "--help"},
      {"replay"},
    };
    for (String[] args : runs) {
      assertThat(run(Main.commandLineFor(Map.of(), args), args))
          .as(String.join(" ", args))
          .isEqualTo(run(Main.newCommandLine(Map.of()), args));
    }
  }

  @Test
  void anythingButASubcommandName_getsTheWholeCommandLine() {
    assertThat(Main.forSubcommand("--help", Map.of())).isNull();
    assertThat(Main.forSubcommand("insp", Map.of())).isNull();
    assertThat(Main.commandLineFor(Map.of(), "--version").getSubcommands())
        .containsKeys("inspect", "compact", "serve");
    assertThat(Main.commandLineFor(Map.of()).getSubcommands()).containsKey("inspect");
  }
}
