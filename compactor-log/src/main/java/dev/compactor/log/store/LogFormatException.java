package dev.compactor.log.store;

import dev.compactor.core.CompactorException;
import java.nio.file.Path;

/**
 * A file of a stored conversation does not hold what it should: a malformed line that is not a torn
 * last line, a duplicate id, a view that references an unknown message, a recovery byte range that
 * no longer holds its message. The message names the file, the 1-based line number (when known) and
 * the byte offset. Nothing is repaired or dropped when this is thrown.
 */
public class LogFormatException extends CompactorException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long line;
  private final long byteOffset;

  /**
   * @param file the file that holds the bad data
   * @param line 1-based line number, or 0 when the problem is not tied to one line
   * @param byteOffset offset of the bad line (or value) in the file, or -1 when not known
   * @param detail what is wrong, naming the bad value
   * @param cause the underlying parse failure, or null
   */
  public LogFormatException(Path file, long line, long byteOffset, String detail, Throwable cause) {
    super(format(file, line, byteOffset, detail), cause);
    this.file = file;
    this.line = line;
    this.byteOffset = byteOffset;
  }

  private static String format(Path file, long line, long byteOffset, String detail) {
    StringBuilder sb = new StringBuilder().append(file);
    if (line > 0) {
      sb.append(':').append(line);
    }
    if (byteOffset >= 0) {
      sb.append(" (byte offset ").append(byteOffset).append(')');
    }
    return sb.append(": ").append(detail).toString();
  }

  /** The file that holds the bad data. */
  public Path file() {
    return file;
  }

  /** 1-based line number, or 0 when the problem is not tied to one line. */
  public long line() {
    return line;
  }

  /** Byte offset of the bad line or value in {@link #file()}, or -1 when not known. */
  public long byteOffset() {
    return byteOffset;
  }
}
