package dev.compactor.log.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/** Whole-file writes that are all-or-nothing and durable: temp file, fsync, rename, fsync dir. */
final class DurableFiles {
  private static final Pattern TEMP_NAME = Pattern.compile("\\..+\\.[0-9a-f]{16}\\.tmp");

  private DurableFiles() {}

  /**
   * Replaces {@code target} with {@code data} atomically: readers see the old or the new content,
   * never a mix, also after a crash.
   *
   * @throws LogIOException naming the file when writing fails (the old content is then kept)
   */
  static void writeAtomically(Path target, byte[] data) {
    Path dir = target.toAbsolutePath().getParent();
    byte[] nonce = new byte[8];
    ThreadLocalRandom.current().nextBytes(nonce);
    Path temp =
        dir.resolve("." + target.getFileName() + "." + HexFormat.of().formatHex(nonce) + ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        writeFully(ch, ByteBuffer.wrap(data), 0);
        ch.force(true);
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      syncDirectory(dir);
    } catch (IOException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException ignored) {
        // the temp file is removed on the next open (deleteTempFiles)
      }
      throw new LogIOException(target, "write", e);
    }
  }

  /** Writes all of {@code buf} at {@code position}. */
  static void writeFully(FileChannel ch, ByteBuffer buf, long position) throws IOException {
    long pos = position;
    while (buf.hasRemaining()) {
      pos += ch.write(buf, pos);
    }
  }

  /**
   * Makes a directory's entries (created, renamed files) durable. Platforms that cannot open a
   * directory (Windows) offer no way to do this; there the rename is as durable as it gets.
   */
  static void syncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // see above: nothing more can be done on this platform
    }
  }

  /** Deletes temp files a crash left behind in {@code dir} (only names this class makes). */
  static void deleteTempFiles(Path dir) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        if (TEMP_NAME.matcher(f.getFileName().toString()).matches()) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      throw new LogIOException(dir, "clean up temp files in", e);
    }
  }
}
