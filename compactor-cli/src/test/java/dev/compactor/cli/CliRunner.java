package dev.compactor.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import picocli.CommandLine;

/** Runs the command line in-process and captures its output. */
record CliRunner(int exitCode, String out, String err) {
  static CliRunner run(String... args) {
    return run(Main.newCommandLine(), args);
  }

  /** Runs with {@code env} in place of the process environment (keys, settings, HOME). */
  static CliRunner runWithEnv(Map<String, String> env, String... args) {
    return run(Main.newCommandLine(env), args);
  }

  private static CliRunner run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new CliRunner(code, out.toString(), err.toString());
  }
}
