package dev.compactor.cli;

import picocli.CommandLine;

/** Entry point of the {@code compactor} command. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (for tests and embedding). */
  public static int run(String... args) {
    return newCommandLine().execute(args);
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
    CommandLine cl = new CommandLine(new CompactorCommand(env));
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
