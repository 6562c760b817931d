package dev.compactor.log.store;

import dev.compactor.core.CompactorException;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * An append-only JSON-lines file: reading it back line by line with byte offsets, repairing a torn
 * last line, and durable appends.
 *
 * <p>Reading: every line ends with {@code \n}. Blank lines are skipped. A malformed line that ends
 * with {@code \n} is an error ({@link LogFormatException} with path, line and offset): appends
 * write a whole line in one call, so such a line is damage, not a crash, and is never "repaired".
 * The bytes after the last {@code \n} are the tail a crash may have torn: when they parse they are
 * kept and completed with the missing {@code \n}; otherwise they are cut off. Invalid UTF-8 decodes
 * to U+FFFD.
 *
 * <p>Appending writes the line and its {@code \n} at the end, then forces the data to the device
 * before returning; {@link #appendAll} writes many lines so and forces them once. A failed append
 * is rolled back by truncating to the old length; when even that fails the file is marked damaged
 * and refuses further appends.
 *
 * <p>Not thread-safe; owners synchronize.
 */
final class JsonlFile implements Closeable {

  /** One parsed line: its value, 1-based line number and byte range {@code [start, end)}. */
  record Line<T>(T value, long number, long start, long end) {}

  /** Result of reading a file: the good lines and how to repair its tail. */
  record Scan<T>(List<Line<T>> lines, long lineCount, long validLength, Repair repair) {}

  enum Repair {
    NONE,
    /** The last line is complete but lacks its {@code \n}. */
    ADD_NEWLINE,
    /** The bytes from {@code validLength} on are a torn line: cut them off. */
    TRUNCATE
  }

  private static final int BUFFER = 1 << 16;

  private final Path path;
  private final FileChannel channel;
  private final boolean readOnly;
  private long size;
  private long lineCount;
  private boolean damaged;

  private JsonlFile(Path path, FileChannel channel, long size, long lineCount, boolean readOnly) {
    this.path = path;
    this.channel = channel;
    this.size = size;
    this.lineCount = lineCount;
    this.readOnly = readOnly;
  }

  /**
   * What a read-only open leaves as it is at the end of {@code file}, for people, or empty when the
   * file ends with a complete line. The file is named by its last two path elements ({@code
   * conversation.jsonl}, {@code views/compacted-001.jsonl}) when it is in a {@code views}
   * directory, else by its name.
   */
  static java.util.Optional<String> describeTail(Path file, Scan<?> scan) {
    Path parent = file.getParent();
    String name =
        parent != null
                && parent.getFileName() != null
                && parent.getFileName().toString().equals("views")
            ? "views/" + file.getFileName()
            : String.valueOf(file.getFileName());
    return switch (scan.repair()) {
      case NONE -> java.util.Optional.empty();
      case TRUNCATE ->
          java.util.Optional.of(
              String.format(
                  "%s: its last line is incomplete (line %d, from byte %d: a write cut short);"
                      + " read without it here, left as it is, and cut off by the next command"
                      + " that writes to the conversation",
                  name, scan.lineCount() + 1, scan.validLength()));
      case ADD_NEWLINE ->
          java.util.Optional.of(
              String.format(
                  "%s: its last line (line %d) lacks its line break (a write cut short); read"
                      + " with it here, left as it is, and completed by the next command that"
                      + " writes to the conversation",
                  name, scan.lineCount()));
    };
  }

  /**
   * Opens {@code file} after a {@link #scan}: for appending ({@link #openForAppend}) when {@code
   * readOnlyProblems} is null, else for reading only ({@link #openForReading}), adding a
   * description of a torn tail, if any, to {@code readOnlyProblems}.
   *
   * @throws LogIOException when the file cannot be opened or repaired
   */
  static JsonlFile open(Path file, Scan<?> scan, List<String> readOnlyProblems) {
    if (readOnlyProblems == null) {
      return openForAppend(file, scan);
    }
    describeTail(file, scan).ifPresent(readOnlyProblems::add);
    return openForReading(file, scan);
  }

  /**
   * Opens {@code file} for reading only after a {@link #scan}: nothing is created or repaired (a
   * torn tail stays as it is, outside the lines read), and {@link #append} is refused.
   *
   * @throws LogIOException when the file cannot be opened
   */
  static JsonlFile openForReading(Path file, Scan<?> scan) {
    if (!Files.exists(file)) {
      return new JsonlFile(file, null, 0, 0, true);
    }
    try {
      return new JsonlFile(
          file,
          FileChannel.open(file, StandardOpenOption.READ),
          scan.validLength(),
          scan.lineCount(),
          true);
    } catch (IOException e) {
      throw new LogIOException(file, "open", e);
    }
  }

  /**
   * Reads every line of {@code file} (a missing file reads as empty) and parses it.
   *
   * @param parse turns a line's text into a value; throws a {@link CompactorException} or {@link
   *     IllegalArgumentException} when the line is malformed
   * @throws LogFormatException for a malformed line that is not the torn last line
   * @throws LogIOException when the file cannot be read
   */
  static <T> Scan<T> scan(Path file, Function<String, T> parse) {
    List<Line<T>> lines = new ArrayList<>();
    long lineNo = 0;
    long pos = 0;
    long lineStart = 0;
    LineBuffer line = new LineBuffer();
    try (InputStream in = Files.newInputStream(file)) {
      byte[] buf = new byte[BUFFER];
      int n;
      while ((n = in.read(buf)) > 0) {
        int from = 0;
        for (int i = 0; i < n; i++) {
          if (buf[i] == '\n') {
            line.append(buf, from, i - from);
            lineNo++;
            Line<T> parsed = parseLine(file, parse, line, lineNo, lineStart, true);
            if (parsed != null) {
              lines.add(parsed);
            }
            lineStart = pos + i + 1;
            line.clear();
            from = i + 1;
          }
        }
        line.append(buf, from, n - from);
        pos += n;
      }
    } catch (NoSuchFileException e) {
      return new Scan<>(List.of(), 0, 0, Repair.NONE);
    } catch (IOException e) {
      throw new LogIOException(file, "read", e);
    }
    if (line.length() == 0) {
      return new Scan<>(lines, lineNo, pos, Repair.NONE);
    }
    Line<T> tail = parseLine(file, parse, line, lineNo + 1, lineStart, false);
    if (tail == null) {
      return new Scan<>(lines, lineNo, lineStart, Repair.TRUNCATE);
    }
    lines.add(tail);
    return new Scan<>(lines, lineNo + 1, pos, Repair.ADD_NEWLINE);
  }

  /** Null for a blank line, and for a torn (unterminated, unparseable) tail. */
  private static <T> Line<T> parseLine(
      Path file,
      Function<String, T> parse,
      LineBuffer line,
      long lineNo,
      long start,
      boolean terminated) {
    int skip = 0;
    if (start == 0 && line.startsWithBom()) {
      skip = 3;
    }
    String text =
        new String(line.bytes(), skip, line.length() - skip, StandardCharsets.UTF_8); // U+FFFD
    if (text.isBlank()) {
      return null;
    }
    try {
      return new Line<>(parse.apply(text), lineNo, start + skip, start + line.length());
    } catch (CompactorException | IllegalArgumentException e) {
      if (!terminated) {
        return null;
      }
      throw new LogFormatException(file, lineNo, start, e.getMessage(), e);
    }
  }

  /**
   * Opens {@code file} for appending after a {@link #scan}, applying the scan's tail repair
   * durably. Creates the file when missing.
   *
   * @throws LogIOException when the file cannot be opened or repaired
   */
  static JsonlFile openForAppend(Path file, Scan<?> scan) {
    boolean existed = Files.exists(file);
    FileChannel ch = null;
    try {
      ch =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      long size = scan.validLength();
      long lines = scan.lineCount();
      switch (scan.repair()) {
        case TRUNCATE -> {
          ch.truncate(size);
          ch.force(true);
        }
        case ADD_NEWLINE -> {
          writeFullyAt(ch, new byte[] {'\n'}, size);
          size++;
          ch.force(true);
        }
        case NONE -> {
          if (ch.size() != size) {
            throw new LogIOException(
                file,
                "changed while it was being opened (" + ch.size() + " != " + size + " bytes)");
          }
        }
      }
      if (!existed) {
        DurableFiles.syncDirectory(file.toAbsolutePath().getParent());
      }
      return new JsonlFile(file, ch, size, lines, false);
    } catch (IOException e) {
      closeQuietly(ch);
      throw new LogIOException(file, "open", e);
    } catch (RuntimeException e) {
      closeQuietly(ch);
      throw e;
    }
  }

  /**
   * Appends one line ({@code json} must not contain a line break) and forces it to the device.
   *
   * @return the byte range {@code [start, end)} of the line, without its {@code \n}
   * @throws LogIOException when writing fails; the file is then rolled back to its old length, or
   *     marked {@linkplain #damaged() damaged} when that fails too
   */
  long[] append(String json) {
    checkAppendable();
    byte[] bytes = (json + "\n").getBytes(StandardCharsets.UTF_8);
    long start = size;
    try {
      writeFullyAt(channel, bytes, start);
      // force(false) is fdatasync: it includes the file size, which reading the data back needs.
      channel.force(false);
    } catch (IOException e) {
      rollBack(start, e);
      throw new LogIOException(path, "append to", e);
    }
    size = start + bytes.length;
    lineCount++;
    return new long[] {start, size - 1};
  }

  /** Bytes gathered before one write of {@link #appendAll}. */
  private static final int WRITE_CHUNK = 1 << 20;

  /**
   * Appends lines ({@code jsons}, none containing a line break) in order and forces them to the
   * device once, after the last: durable on return like {@link #append}, for one flush instead of
   * one per line. A crash before it returns may keep any whole-line prefix of them and a torn line,
   * which opening cuts off.
   *
   * @return the byte range {@code [start, end)} of each line, without its {@code \n}: {@code
   *     [i][0]} and {@code [i][1]}
   * @throws LogIOException when writing fails; the file is then rolled back to its old length, or
   *     marked {@linkplain #damaged() damaged} when that fails too
   */
  long[][] appendAll(List<String> jsons) {
    checkAppendable();
    long start = size;
    long[][] ranges = new long[jsons.size()][];
    ByteArrayOutputStream chunk = new ByteArrayOutputStream(WRITE_CHUNK + 1024);
    long pos = start;
    long written = start;
    try {
      for (int i = 0; i < jsons.size(); i++) {
        byte[] bytes = jsons.get(i).getBytes(StandardCharsets.UTF_8);
        ranges[i] = new long[] {pos, pos + bytes.length};
        pos += bytes.length + 1;
        if (chunk.size() > 0 && chunk.size() + bytes.length + 1 > WRITE_CHUNK) {
          writeFullyAt(channel, chunk.toByteArray(), written);
          written += chunk.size();
          chunk.reset();
        }
        chunk.write(bytes);
        chunk.write('\n');
      }
      if (chunk.size() > 0) {
        writeFullyAt(channel, chunk.toByteArray(), written);
      }
      // force(false) is fdatasync: it includes the file size, which reading the data back needs.
      channel.force(false);
    } catch (IOException e) {
      rollBack(start, e);
      throw new LogIOException(path, "append to", e);
    }
    size = pos;
    lineCount += jsons.size();
    return ranges;
  }

  private void checkAppendable() {
    if (readOnly) {
      throw new LogIOException(path, "was opened read-only; nothing can be appended to it");
    }
    if (damaged) {
      throw new LogIOException(path, "an earlier append failed and could not be rolled back");
    }
  }

  private void rollBack(long length, IOException failure) {
    try {
      channel.truncate(length);
      channel.force(false);
    } catch (IOException | RuntimeException rollback) {
      damaged = true;
      failure.addSuppressed(rollback);
    }
  }

  /**
   * Reads the bytes {@code [start, end)}.
   *
   * @throws LogIOException when reading fails or the range is beyond the end of the file
   */
  byte[] read(long start, long end) {
    if (end > size || end - start > Integer.MAX_VALUE) {
      throw new LogIOException(
          path, "byte range " + start + "-" + end + " is outside the file (" + size + " bytes)");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) (end - start));
    if (channel == null) {
      throw new LogIOException(
          path, "does not exist; byte range " + start + "-" + end + " is outside it");
    }
    try {
      long pos = start;
      while (buf.hasRemaining()) {
        int n = channel.read(buf, pos);
        if (n < 0) {
          throw new LogIOException(
              path, "byte range " + start + "-" + end + " ends after the end of the file");
        }
        pos += n;
      }
    } catch (IOException e) {
      throw new LogIOException(path, "read bytes " + start + "-" + end + " of", e);
    }
    return buf.array();
  }

  Path path() {
    return path;
  }

  long size() {
    return size;
  }

  /** Number of lines (including blank ones), so the next appended line is number count + 1. */
  long lineCount() {
    return lineCount;
  }

  boolean damaged() {
    return damaged;
  }

  @Override
  public void close() {
    closeQuietly(channel);
  }

  private static void writeFullyAt(FileChannel ch, byte[] bytes, long position) throws IOException {
    DurableFiles.writeFully(ch, ByteBuffer.wrap(bytes), position);
  }

  private static void closeQuietly(FileChannel ch) {
    if (ch != null) {
      try {
        ch.close();
      } catch (IOException ignored) {
        // nothing was pending: every append forced its data already
      }
    }
  }

  /** A growable byte array holding the current line. */
  private static final class LineBuffer {
    private byte[] bytes = new byte[1024];
    private int length;

    void append(byte[] src, int from, int len) {
      if (length + len > bytes.length) {
        long want = Math.max((long) bytes.length * 2, (long) length + len);
        if (want > Integer.MAX_VALUE - 8) {
          throw new CompactorException("a line longer than 2 GB cannot be read");
        }
        bytes = Arrays.copyOf(bytes, (int) want);
      }
      System.arraycopy(src, from, bytes, length, len);
      length += len;
    }

    void clear() {
      length = 0;
      if (bytes.length > (1 << 20)) {
        bytes = new byte[1024];
      }
    }

    boolean startsWithBom() {
      return length >= 3
          && bytes[0] == (byte) 0xEF
          && bytes[1] == (byte) 0xBB
          && bytes[2] == (byte) 0xBF;
    }

    byte[] bytes() {
      return bytes;
    }

    int length() {
      return length;
    }
  }
}
