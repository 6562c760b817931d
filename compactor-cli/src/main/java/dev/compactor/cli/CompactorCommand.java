package dev.compactor.cli;

import java.util.Map;
import java.util.Objects;
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
      ChatCommand.class,
      DemoCommand.class,
      KeysCommand.class,
      ProvidersCommand.class,
      ReplayCommand.class,
      SampleCommand.class,
      ServeCommand.class,
      TaskCommand.class
    })
final class CompactorCommand implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  /** The environment the subcommands read (API keys, budgets, config locations). */
  private final Map<String, String> env;

  CompactorCommand() {
    this(System.getenv());
  }

  CompactorCommand(Map<String, String> env) {
    this.env = Objects.requireNonNull(env, "env");
  }

  Map<String, String> env() {
    return env;
  }

  /** The environment of {@code parent}, or the process environment without one. */
  static Map<String, String> envOf(CompactorCommand parent) {
    return parent == null ? System.getenv() : parent.env();
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
