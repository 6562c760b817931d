package dev.compactor.log.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
    write(target, data, true);
  }

  /**
   * Replaces {@code target} with {@code data} atomically for readers, like {@link
   * #writeAtomically}, but leaves making it durable to a later {@link #syncAll} of the file: a
   * crash before that may leave the file empty or short.
   *
   * @throws LogIOException naming the file when writing fails (the old content is then kept)
   */
  static void writeUnsynced(Path target, byte[] data) {
    write(target, data, false);
  }

  private static void write(Path target, byte[] data, boolean durable) {
    Path dir = target.toAbsolutePath().getParent();
    byte[] nonce = new byte[8];
    ThreadLocalRandom.current().nextBytes(nonce);
    Path temp =
        dir.resolve("." + target.getFileName() + "." + HexFormat.of().formatHex(nonce) + ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        writeFully(ch, ByteBuffer.wrap(data), 0);
        if (durable) {
          ch.force(true);
        }
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      if (durable) {
        syncDirectory(dir);
      }
    } catch (IOException e) {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException ignored) {
        // the temp file is removed on the next open (deleteTempFiles)
      }
      throw new LogIOException(target, "write", e);
    }
  }

  /** Files flushed at once by {@link #syncAll}: the disk merges flushes that wait together. */
  private static final int SYNC_THREADS = 8;

  /**
   * Makes files written by {@link #writeUnsynced} durable, with their directory entries: the files
   * are flushed on up to {@value #SYNC_THREADS} threads at once, so that the file system commits
   * them together (a hundred flushes one after another cost a hundred disk round trips), then each
   * directory once.
   *
   * @throws LogIOException naming a file that cannot be flushed
   */
  static void syncAll(List<Path> files) {
    if (files.isEmpty()) {
      return;
    }
    int threads = Math.min(SYNC_THREADS, files.size());
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "compactor-sync");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<?>> flushes = new ArrayList<>(files.size());
      for (Path f : files) {
        flushes.add(pool.submit(() -> syncFile(f)));
      }
      for (int i = 0; i < flushes.size(); i++) {
        try {
          flushes.get(i).get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r; // syncFile's LogIOException
          }
          throw (Error) e.getCause();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new LogIOException(
              files.get(i), "flush", new InterruptedIOException("interrupted while flushing"));
        }
      }
    } finally {
      pool.shutdownNow();
    }
    Set<Path> dirs = new LinkedHashSet<>();
    for (Path f : files) {
      dirs.add(f.toAbsolutePath().getParent());
    }
    dirs.forEach(DurableFiles::syncDirectory);
  }

  private static Void syncFile(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ch.force(true);
      return null;
    } catch (IOException e) {
      throw new LogIOException(file, "flush", e);
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
