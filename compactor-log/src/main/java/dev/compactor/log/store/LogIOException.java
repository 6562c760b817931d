package dev.compactor.log.store;

import dev.compactor.core.CompactorException;
import java.io.IOException;
import java.nio.file.Path;

/** Reading or writing a file of a stored conversation failed. The message names the file. */
public class LogIOException extends CompactorException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;

  public LogIOException(Path file, String action, IOException cause) {
    super("cannot " + action + " " + file + ": " + cause, cause);
    this.file = file;
  }

  public LogIOException(Path file, String detail) {
    super(file + ": " + detail);
    this.file = file;
  }

  /** The file (or directory) the failed operation was on. */
  public Path file() {
    return file;
  }
}
