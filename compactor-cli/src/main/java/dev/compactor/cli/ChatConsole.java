package dev.compactor.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * Where {@code compactor chat} reads what is typed and shows what happens: a terminal (line
 * editing, history, completion, colour; {@link TerminalConsole}) or plain lines for scripts and
 * pipes ({@link Plain}: no prompt, no escape sequences; answers and command output on standard
 * output, status lines on standard error).
 *
 * <p>Status lines say what Compactor did (the context size, a reminder, a compaction); they are
 * shown only and never become part of what is sent to the model.
 */
interface ChatConsole extends AutoCloseable {
  /**
   * The next line typed, or null at the end of the input (Ctrl-D, end of file). On a terminal,
   * Ctrl-C discards the line being typed and returns an empty line.
   */
  String readLine();

  /**
   * An answer is about to stream: from now until {@link #endAnswer}, Ctrl-C on a terminal asks to
   * stop it ({@link #interrupted}) instead of ending the program.
   */
  default void startAnswer() {}

  /** Whether Ctrl-C was pressed since {@link #startAnswer}. */
  default boolean interrupted() {
    return false;
  }

  /** A piece of the model's answer, shown as it streams. */
  void answer(String delta);

  /** A piece of the model's reasoning, where the console shows it (a terminal, dimmed). */
  void reasoning(String delta);

  /** Ends the answer being streamed: the next output starts on a line of its own. */
  void endAnswer();

  /** A status line (UI-only). */
  void status(String line);

  /** An error line (UI-only). */
  void error(String line);

  /** Output of a command the person asked for ({@code /context}, {@code /view}, …). */
  void print(String text);

  /** Whether a person is typing (a terminal). */
  boolean interactive();

  @Override
  void close();

  /**
   * Lines from {@code in}; answers and command output to {@code out}, status lines to {@code err}.
   */
  final class Plain implements ChatConsole {
    private final BufferedReader in;
    private final PrintWriter out;
    private final PrintWriter err;
    private boolean midLine;

    Plain(BufferedReader in, PrintWriter out, PrintWriter err) {
      this.in = in;
      this.out = out;
      this.err = err;
    }

    @Override
    public String readLine() {
      try {
        return in.readLine();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read standard input", e);
      }
    }

    @Override
    public void answer(String delta) {
      if (delta.isEmpty()) {
        return;
      }
      out.print(delta);
      out.flush();
      midLine = !delta.endsWith("\n");
    }

    @Override
    public void reasoning(String delta) {
      // Left out: standard output carries the answers alone.
    }

    @Override
    public void endAnswer() {
      if (midLine) {
        out.println();
        midLine = false;
      }
      out.flush();
    }

    @Override
    public void status(String line) {
      out.flush();
      err.println(line);
      err.flush();
    }

    @Override
    public void error(String line) {
      out.flush();
      err.println(line);
      err.flush();
    }

    @Override
    public void print(String text) {
      out.print(text.endsWith("\n") ? text : text + "\n");
      out.flush();
    }

    @Override
    public boolean interactive() {
      return false;
    }

    @Override
    public void close() {
      out.flush();
      err.flush();
    }
  }
}
