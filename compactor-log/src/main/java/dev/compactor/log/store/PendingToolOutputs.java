package dev.compactor.log.store;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The tool outputs a conversation has saved and not yet made durable. Each is written (to a
 * temporary file, renamed into place) on a background thread as soon as it is saved, so that a
 * compaction that saves many outputs does not wait for the file system between them; {@link #flush}
 * waits for the writes and flushes them together, and the conversation calls it before it commits a
 * view, which is the first moment anything names the files. A write that failed is reported there,
 * and the view is not committed. Thread-safe.
 */
final class PendingToolOutputs {
  private record Pending(byte[] bytes, CompletableFuture<Void> written) {}

  private final Map<Path, Pending> pending = new LinkedHashMap<>(); // guarded by this
  private final Executor writer;
  private final ExecutorService ownWriter; // null when the writer was given

  private static final long IDLE_SECONDS = 10;

  /** Writes on a thread of its own, started on a save and ended after a while without any. */
  PendingToolOutputs() {
    ThreadPoolExecutor w =
        new ThreadPoolExecutor(
            1,
            1,
            IDLE_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "compactor-tool-outputs");
              t.setDaemon(true);
              return t;
            });
    w.allowCoreThreadTimeOut(true); // a conversation that is open but idle holds no thread
    this.ownWriter = w;
    this.writer = w;
  }

  /** Writes with {@code writer} (tests hold writes back with it). */
  PendingToolOutputs(Executor writer) {
    this.writer = writer;
    this.ownWriter = null;
  }

  /** The bytes saved under {@code file} and not flushed yet, or null. */
  synchronized byte[] bytesOf(Path file) {
    Pending p = pending.get(file);
    return p == null ? null : p.bytes();
  }

  /** Starts writing {@code bytes} to {@code file}, a name no other save has. */
  synchronized void add(Path file, byte[] bytes) {
    CompletableFuture<Void> written =
        CompletableFuture.runAsync(() -> DurableFiles.writeUnsynced(file, bytes), writer);
    pending.put(file, new Pending(bytes, written));
  }

  /** The files saved and not flushed yet, in the order they were saved. */
  synchronized List<Path> files() {
    return List.copyOf(pending.keySet());
  }

  /** Waits for the writes saved so far and makes them durable; see {@link #flush(List)}. */
  void flush() {
    flush(files());
  }

  /**
   * Waits for the writes of {@code files} (pending saves) and makes them durable with their
   * directory entries; they are then no longer pending.
   *
   * @throws LogIOException naming the first file whose write or flush failed; the files whose write
   *     failed are forgotten (a later save of the same content writes them again)
   */
  void flush(List<Path> files) {
    if (files.isEmpty()) {
      return;
    }
    List<Path> written = new ArrayList<>(files.size());
    RuntimeException failure = null;
    for (Path f : files) {
      CompletableFuture<Void> w;
      synchronized (this) {
        Pending p = pending.get(f);
        if (p == null) {
          continue; // flushed meanwhile by another caller
        }
        w = p.written();
      }
      try {
        w.get();
        written.add(f);
      } catch (ExecutionException e) {
        forget(f);
        if (failure == null) {
          failure = unwrap(f, e.getCause());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LogIOException(f, "write", new InterruptedIOException("interrupted"));
      }
    }
    if (failure != null) {
      throw failure;
    }
    DurableFiles.syncAll(written);
    synchronized (this) {
      written.forEach(pending::remove);
    }
  }

  private synchronized void forget(Path file) {
    pending.remove(file);
  }

  private static RuntimeException unwrap(Path file, Throwable cause) {
    if (cause instanceof RuntimeException r) {
      return r; // writeUnsynced's LogIOException
    }
    if (cause instanceof Error e) {
      throw e;
    }
    return new LogIOException(file, "write", new IOException(cause));
  }

  /** Stops the writer thread; call after {@link #flush}. */
  void close() {
    if (ownWriter != null) {
      ownWriter.shutdown();
    }
  }
}
