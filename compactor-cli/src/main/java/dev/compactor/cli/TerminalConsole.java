package dev.compactor.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.completer.ArgumentCompleter;
import org.jline.reader.impl.completer.NullCompleter;
import org.jline.reader.impl.completer.StringsCompleter;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedString;
import org.jline.utils.AttributedStyle;

/**
 * {@code compactor chat} on a terminal, with JLine: line editing, a history kept across chats, Tab
 * completion of the commands, the answer streamed as it arrives, status lines dimmed.
 */
final class TerminalConsole implements ChatConsole {
  static final String PROMPT = "> ";

  private final Terminal terminal;
  private final LineReader reader;
  private final PrintWriter out;
  private boolean midLine;
  private boolean inReasoning;
  private volatile boolean interrupted;
  private Terminal.SignalHandler previous;

  private TerminalConsole(Terminal terminal, LineReader reader) {
    this.terminal = terminal;
    this.reader = reader;
    this.out = terminal.writer();
  }

  /**
   * The system terminal.
   *
   * @param history where typed lines are kept (its directory is created), or null for none
   * @param commands the command words, for Tab completion
   */
  static TerminalConsole open(Path history, List<String> commands) {
    Terminal terminal;
    try {
      terminal = TerminalBuilder.builder().system(true).name("compactor").build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the terminal", e);
    }
    LineReaderBuilder b =
        LineReaderBuilder.builder()
            .terminal(terminal)
            .appName("compactor")
            .completer(
                new ArgumentCompleter(new StringsCompleter(commands), NullCompleter.INSTANCE))
            // "!" and "^" are ordinary characters of a message, not history expansion.
            .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true);
    if (history != null) {
      try {
        Files.createDirectories(history.toAbsolutePath().getParent());
        b.variable(LineReader.HISTORY_FILE, history);
      } catch (IOException e) {
        // No history then; the chat itself is unaffected.
      }
    }
    return new TerminalConsole(terminal, b.build());
  }

  @Override
  public String readLine() {
    try {
      return reader.readLine(new AttributedString(PROMPT, AttributedStyle.BOLD).toAnsi(terminal));
    } catch (UserInterruptException e) {
      status("(Ctrl-C: line discarded; /exit or Ctrl-D ends the chat)");
      return "";
    } catch (EndOfFileException e) {
      return null;
    }
  }

  @Override
  public void startAnswer() {
    interrupted = false;
    previous = terminal.handle(Terminal.Signal.INT, signal -> interrupted = true);
  }

  @Override
  public boolean interrupted() {
    return interrupted;
  }

  @Override
  public void answer(String delta) {
    if (delta.isEmpty()) {
      return;
    }
    if (inReasoning) {
      out.println();
      inReasoning = false;
    }
    out.print(delta);
    out.flush();
    midLine = !delta.endsWith("\n");
  }

  @Override
  public void reasoning(String delta) {
    if (delta.isEmpty()) {
      return;
    }
    inReasoning = true;
    out.print(
        new AttributedString(delta, AttributedStyle.DEFAULT.faint().italic()).toAnsi(terminal));
    out.flush();
    midLine = !delta.endsWith("\n");
  }

  @Override
  public void endAnswer() {
    newLine();
    if (previous != null) {
      terminal.handle(Terminal.Signal.INT, previous);
      previous = null;
    }
  }

  /** Ends a line the answer left open. */
  private void newLine() {
    if (midLine) {
      out.println();
      midLine = false;
    }
    inReasoning = false;
    out.flush();
  }

  @Override
  public void status(String line) {
    newLine();
    out.println(new AttributedString(line, AttributedStyle.DEFAULT.faint()).toAnsi(terminal));
    out.flush();
  }

  @Override
  public void error(String line) {
    newLine();
    out.println(
        new AttributedString(line, AttributedStyle.DEFAULT.foreground(AttributedStyle.RED))
            .toAnsi(terminal));
    out.flush();
  }

  @Override
  public void print(String text) {
    newLine();
    out.print(text.endsWith("\n") ? text : text + "\n");
    out.flush();
  }

  @Override
  public boolean interactive() {
    return true;
  }

  @Override
  public void close() {
    try {
      reader.getHistory().save();
    } catch (IOException e) {
      // The history is a convenience.
    }
    try {
      terminal.close();
    } catch (IOException e) {
      // Closing restores the terminal's modes; nothing more to do when it fails.
    }
  }
}
