package dev.compactor.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/** Runs the command line in-process and captures its output. */
record CliRunner(int exitCode, String out, String err) {
  static CliRunner run(String... args) {
    return run(Main.commandLineFor(System.getenv(), args), args);
  }

  /**
   * Writes a generated session of {@code turns} turns from {@code seed} to {@code file} with {@code
   * compactor sample}, and returns the file.
   */
  static Path sample(Path file, int turns, int seed) {
    CliRunner r =
        run("sample", "--turns", "" + turns, "--seed", "" + seed, "--out", file.toString());
    if (r.exitCode() != 0) {
      throw new AssertionError("compactor sample exited with " + r.exitCode() + ": " + r.err());
    }
    return file;
  }

  /** Runs with {@code env} in place of the process environment (keys, settings, HOME). */
  static CliRunner runWithEnv(Map<String, String> env, String... args) {
    return run(Main.commandLineFor(env, args), args);
  }

  /**
   * {@code compact <source> [--out <out>] --strategy <strategy> <options>} in the process
   * environment; {@code out} may be null (compacting a stored conversation in place).
   */
  static CliRunner compact(Path source, Path out, String strategy, String... options) {
    return run(Main.newCommandLine(), compactArgs(source, out, strategy, options));
  }

  /** {@link #compact(Path, Path, String, String...)} with {@code env} as the environment. */
  static CliRunner compact(
      Map<String, String> env, Path source, Path out, String strategy, String... options) {
    return run(Main.newCommandLine(env), compactArgs(source, out, strategy, options));
  }

  /**
   * The arguments of {@code task call --chat <chat> --db <db> --request <request>}, then {@code
   * options}; {@code db} is a file or a JDBC URL.
   */
  static String[] taskCall(String chat, Object db, Path request, String... options) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "task", "call", "--chat", chat, "--db", db.toString(), "--request", "" + request));
    args.addAll(List.of(options));
    return args.toArray(String[]::new);
  }

  private static String[] compactArgs(Path source, Path out, String strategy, String... options) {
    List<String> args = new ArrayList<>(List.of("compact", source.toString()));
    if (out != null) {
      args.addAll(List.of("--out", out.toString()));
    }
    args.addAll(List.of("--strategy", strategy));
    args.addAll(List.of(options));
    return args.toArray(String[]::new);
  }

  /** Runs {@code cl} with {@code args}, capturing what it writes. */
  static CliRunner run(CommandLine cl, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cl.setOut(new PrintWriter(out));
    cl.setErr(new PrintWriter(err));
    int code = cl.execute(args);
    return new CliRunner(code, out.toString(), err.toString());
  }
}
