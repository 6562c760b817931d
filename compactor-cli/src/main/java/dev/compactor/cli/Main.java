package dev.compactor.cli;

import picocli.CommandLine;

/** Entry point of the {@code compactor} command. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /**
   * Runs the command line and returns the exit code (for tests and embedding). A run of one
   * subcommand ({@code compactor inspect FILE}) builds only that subcommand's model: picocli reads
   * the options of every command it is given, which is most of what a short command's start costs.
   * Anything else ({@code --help}, an unknown or abbreviated name) gets the whole command line.
   */
  public static int run(String... args) {
    return commandLineFor(System.getenv(), args).execute(args);
  }

  /**
   * The command line that runs {@code args}: only the named subcommand's when {@code args} starts
   * with a subcommand's name or alias, else the whole one.
   */
  public static CommandLine commandLineFor(java.util.Map<String, String> env, String... args) {
    CommandLine cl = args.length > 0 ? forSubcommand(args[0], env) : null;
    return cl != null ? cl : newCommandLine(env);
  }

  /**
   * The command line with only the subcommand named {@code name} (a name or alias of one of {@link
   * CompactorCommand}'s subcommands), configured as {@link #newCommandLine(java.util.Map)} is; null
   * when {@code name} names none.
   */
  static CommandLine forSubcommand(String name, java.util.Map<String, String> env) {
    CommandLine.Command root = CompactorCommand.class.getAnnotation(CommandLine.Command.class);
    for (Class<?> sub : root.subcommands()) {
      CommandLine.Command c = sub.getAnnotation(CommandLine.Command.class);
      if (c != null && (c.name().equals(name) || java.util.List.of(c.aliases()).contains(name))) {
        CommandLine.Model.CommandSpec spec =
            CommandLine.Model.CommandSpec.wrapWithoutInspection(new CompactorCommand(env));
        spec.name(root.name()).version(root.version()).mixinStandardHelpOptions(true);
        spec.usageMessage().description(root.description());
        CommandLine cl = new CommandLine(spec);
        cl.addSubcommand(c.name(), new CommandLine(sub));
        return configure(cl);
      }
    }
    return null;
  }

  /** The configured picocli command line: clear one-line errors instead of stack traces. */
  public static CommandLine newCommandLine() {
    return newCommandLine(System.getenv());
  }

  /**
   * {@link #newCommandLine()} reading {@code env} instead of the process environment (API keys,
   * {@code COMPACTOR_*} settings, config locations), for tests and embedding.
   */
  public static CommandLine newCommandLine(java.util.Map<String, String> env) {
    return configure(new CommandLine(new CompactorCommand(env)));
  }

  /** Exit codes in the help, and clear one-line errors instead of stack traces. */
  private static CommandLine configure(CommandLine cl) {
    ExitCodes.document(cl);
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          String message = CommandErrors.message(ex);
          if (CommandErrors.wantsJson(commandLine, parseResult.originalArgs())) {
            CommandErrors.printJson(commandLine.getOut(), CommandErrors.code(ex), message);
          }
          commandLine.getErr().println("compactor: " + message);
          if (System.getenv("COMPACTOR_DEBUG") != null) {
            ex.printStackTrace(commandLine.getErr());
          }
          commandLine.getErr().flush();
          return 2;
        });
    CommandLine.IParameterExceptionHandler usage = cl.getParameterExceptionHandler();
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          CommandLine where = ex.getCommandLine();
          if (CommandErrors.wantsJson(where, java.util.List.of(args))) {
            CommandErrors.printJson(where.getOut(), "usage", ex.getMessage());
          }
          return usage.handleParseException(ex, args);
        });
    return cl;
  }
}
