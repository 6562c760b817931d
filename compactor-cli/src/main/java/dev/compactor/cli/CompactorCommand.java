package dev.compactor.cli;

import picocli.CommandLine.Command;

/** The {@code compactor} command and its subcommands. */
@Command(
    name = "compactor",
    mixinStandardHelpOptions = true,
    version = "compactor 0.1.0-SNAPSHOT",
    description = "Keeps long LLM conversations inside their context budget.",
    subcommands = {
      InspectCommand.class,
      CompactCommand.class,
      ReplayCommand.class,
      SampleCommand.class
    })
final class CompactorCommand implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
