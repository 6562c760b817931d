package dev.compactor.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the command line in-process and captures its output. */
record CliRunner(int exitCode, String out, String err) {
  static CliRunner run(String... args) {
    CommandLine cl = Main.newCommandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new CliRunner(code, out.toString(), err.toString());
  }
}
