package dev.compactor.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * {@code compactor chat} as a separate process, as a person or a script runs it: on a real
 * pseudo-terminal ({@link #pty}, through {@code script} of util-linux, which gives the child a pty
 * and relays the test's keystrokes to it) or with plain pipes ({@link #pipe}).
 *
 * <p>The child runs {@code dev.compactor.cli.Main chat ARGS} on the test's class path with {@code
 * HOME} and {@code XDG_DATA_HOME} in the test's directory and no API key or budget variables from
 * the test's environment, in the working directory given.
 */
final class ChatProcess implements AutoCloseable {
  private static final Pattern ESCAPES =
      Pattern.compile(
          "\u001B\\[[0-?]*[ -/]*[@-~]" // CSI: colours, cursor moves, modes
              + "|\u001B\\][^\u0007\u001B]*(?:\u0007|\u001B\\\\)" // OSC: titles
              + "|\u001B[()][0-9A-Za-z]" // character sets
              + "|\u001B[=>78]"); // keypad modes, cursor save/restore

  final Process process;
  private final boolean pty;
  private final StringBuilder out = new StringBuilder();
  private final StringBuilder err = new StringBuilder();
  private final OutputStream in;

  private ChatProcess(Process process, boolean pty) {
    this.process = process;
    this.pty = pty;
    this.in = process.getOutputStream();
    pump(process.getInputStream(), out);
    pump(process.getErrorStream(), err);
  }

  /** Whether a pseudo-terminal can be had: {@code script} of util-linux is installed. */
  static boolean ptyAvailable() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      if (Files.isExecutable(Path.of(dir, "script"))) {
        return true;
      }
    }
    return false;
  }

  /** The chat on a pseudo-terminal of 160 columns and 50 rows. */
  static ChatProcess pty(Path home, Path work, String... args) {
    StringBuilder cmd = new StringBuilder("stty cols 160 rows 50 2>/dev/null; exec");
    for (String a : javaCommand(args)) {
      cmd.append(' ').append(quote(a));
    }
    ProcessBuilder pb = new ProcessBuilder("script", "-qfec", cmd.toString(), "/dev/null");
    environment(pb, home, work);
    pb.environment().put("TERM", "xterm-256color");
    return start(pb, true);
  }

  /** The chat with its standard streams on pipes (not a terminal). */
  static ChatProcess pipe(Path home, Path work, String... args) {
    ProcessBuilder pb = new ProcessBuilder(javaCommand(args));
    environment(pb, home, work);
    return start(pb, false);
  }

  private static ChatProcess start(ProcessBuilder pb, boolean pty) {
    try {
      return new ChatProcess(pb.start(), pty);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + pb.command(), e);
    }
  }

  private static List<String> javaCommand(String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.compactor.cli.Main"));
    cmd.add("chat");
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static void environment(ProcessBuilder pb, Path home, Path work) {
    Map<String, String> env = pb.environment();
    for (String k :
        List.of(
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "XDG_CONFIG_HOME",
            "COMPACTOR_CONTEXT_BUDGET",
            "COMPACTOR_CONTEXT_LENGTH",
            "COMPACTOR_PLUGIN_PATH")) {
      env.remove(k);
    }
    env.putAll(ChatProcess.env(home));
    pb.directory(work.toFile());
  }

  /** The environment of the child (also for in-process runs of other commands on its files). */
  static Map<String, String> env(Path home) {
    return Map.of("HOME", home.toString(), "XDG_DATA_HOME", home.resolve("data").toString());
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  private static void pump(InputStream stream, StringBuilder into) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[8192];
              try {
                for (int n; (n = stream.read(buf)) >= 0; ) {
                  synchronized (into) {
                    into.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    into.notifyAll();
                  }
                }
              } catch (IOException e) {
                // the process ended
              }
            },
            "chat-output");
    t.setDaemon(true);
    t.start();
  }

  /** Types a line and Enter. */
  void type(String line) {
    try {
      in.write((line + (pty ? "\r" : "\n")).getBytes(StandardCharsets.UTF_8));
      in.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot type into the chat: " + tail(), e);
    }
  }

  /** Presses keys: {@code raw} as it is, e.g. {@code "\u0003"} for Ctrl-C on a terminal. */
  void keys(String raw) {
    try {
      in.write(raw.getBytes(StandardCharsets.UTF_8));
      in.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot type into the chat: " + tail(), e);
    }
  }

  /** Ends the input (the chat sees the end of its input). */
  void closeInput() {
    try {
      in.close();
    } catch (IOException e) {
      // already gone
    }
  }

  /** Standard output (on a pty: everything the screen got), escape sequences and CRs removed. */
  String screen() {
    synchronized (out) {
      return clean(out.toString());
    }
  }

  /** The raw bytes of standard output, as text, escape sequences included. */
  String raw() {
    synchronized (out) {
      return out.toString();
    }
  }

  /** Standard error. */
  String errors() {
    synchronized (err) {
      return err.toString();
    }
  }

  static String clean(String s) {
    return ESCAPES.matcher(s).replaceAll("").replace("\r", "");
  }

  /**
   * Waits until {@code text} occurs at least {@code times} times on the screen (or stderr, for the
   * pipe's status lines), at most {@code timeout}.
   *
   * @throws AssertionError with the screen's end when it does not
   */
  void await(String text, int times, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (count(screen() + errors(), text) >= times) {
        return;
      }
      if (!process.isAlive() && count(screen() + errors(), text) < times) {
        sleep(200); // let the pumps drain
        if (count(screen() + errors(), text) >= times) {
          return;
        }
        throw new AssertionError(
            "the chat ended (exit "
                + process.exitValue()
                + ") before \""
                + text
                + "\" ×"
                + times
                + ":\n"
                + tail());
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "no \"" + text + "\" ×" + times + " within " + timeout + ":\n" + tail());
      }
      synchronized (out) {
        try {
          out.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      }
    }
  }

  static int count(String haystack, String needle) {
    int n = 0;
    for (int at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
      n++;
    }
    return n;
  }

  private String tail() {
    String s = screen();
    String e = errors();
    return "--- screen (end) ---\n"
        + s.substring(Math.max(0, s.length() - 4000))
        + "\n--- stderr (end) ---\n"
        + e.substring(Math.max(0, e.length() - 2000));
  }

  /** Waits for the process to end and returns its exit code. */
  int exitCode(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the chat did not end within " + timeout + ":\n" + tail());
    }
    sleep(100);
    return process.exitValue();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    closeInput();
    if (process.isAlive()) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
  }
}
