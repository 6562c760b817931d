package dev.compactor.replay;

import dev.compactor.core.CompactorException;
import dev.compactor.log.imports.ImportException;
import dev.compactor.log.imports.ImportResult;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.imports.Importers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Replays files of recorded conversations under several strategies side by side and sums the
 * figures per file and in total.
 *
 * <p>Files are read with {@link Importers} (every supported format; a file may hold several
 * conversations, e.g. tau-bench's 200), each conversation is {@linkplain
 * RecordedConversation#prepare prepared} once, then every (conversation, strategy) pair is replayed
 * by a {@link Replayer} on a pool of {@link ReplayOptions#threads()} threads, largest conversations
 * first. Results do not depend on the number of threads; they vary between runs by a few hundredths
 * of a percent at most, because the policies give the messages they add (reminders, checkpoints)
 * random ids, whose token counts differ.
 *
 * <pre>{@code
 * ReplayReport r = new ReplayRunner(ReplayOptions.scorecard())
 *     .run(files, List.of(strategies.get("none"), strategies.get("auto")), ProgressListener.NONE);
 * }</pre>
 */
public final class ReplayRunner {
  private final ReplayOptions options;

  /** A runner with these options. */
  public ReplayRunner(ReplayOptions options) {
    this.options = Objects.requireNonNull(options, "options");
  }

  /**
   * The files to replay for paths as given (e.g. on a command line): a file stands for itself, a
   * directory for its regular files, recursively, in path order, except Markdown ({@code .md})
   * notes.
   *
   * @throws CompactorException when a path is neither a file nor a directory, a directory cannot be
   *     listed, or there is no file at all (the message names the paths)
   */
  public static List<Path> expand(List<Path> given) {
    List<Path> out = new ArrayList<>();
    for (Path p : given) {
      if (Files.isDirectory(p)) {
        try (Stream<Path> s = Files.walk(p)) {
          s.filter(Files::isRegularFile)
              .filter(f -> !f.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".md"))
              .sorted()
              .forEach(out::add);
        } catch (IOException e) {
          throw new CompactorException("cannot list " + p + ": " + e.getMessage(), e);
        }
      } else if (Files.isRegularFile(p)) {
        out.add(p);
      } else {
        throw new CompactorException("no such file or directory: " + p);
      }
    }
    if (out.isEmpty()) {
      throw new CompactorException("no files to replay in " + given);
    }
    return out;
  }

  /**
   * Runs the replay.
   *
   * @param files transcripts in any supported format
   * @param strategies distinct strategies, in report order
   * @param progress hears progress (from worker threads)
   * @throws CompactorException when a file cannot be read (the message names it) or a strategy
   *     fails (naming the strategy, file and conversation)
   */
  public ReplayReport run(
      List<Path> files, List<? extends ReplayStrategy> strategies, ProgressListener progress) {
    Objects.requireNonNull(progress, "progress");
    if (files.isEmpty()) {
      throw new IllegalArgumentException("no files to replay");
    }
    if (strategies.isEmpty()) {
      throw new IllegalArgumentException("no strategies to replay");
    }
    List<String> names = strategies.stream().map(ReplayStrategy::name).toList();
    if (names.stream().distinct().count() != names.size()) {
      throw new IllegalArgumentException("a strategy is named twice: " + names);
    }
    long started = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(options.threads(), ReplayRunner::daemon);
    try {
      Map<String, String> skipped = new LinkedHashMap<>();
      List<Loaded> loaded = new ArrayList<>();
      for (Loaded l : load(files, pool, progress)) {
        if (l.unreadable != null) {
          skipped.put(l.file, l.unreadable);
        } else {
          loaded.add(l);
        }
      }
      List<Task> tasks = new ArrayList<>();
      long total = 0;
      for (Loaded l : loaded) {
        for (RecordedConversation c : l.conversations) {
          for (ReplayStrategy s : strategies) {
            tasks.add(new Task(l, c, s));
            total += c.callCount();
          }
        }
      }
      Replayer replayer = new Replayer(options.counter());
      AtomicLong done = new AtomicLong();
      long totalCalls = total;
      List<Task> bySize = new ArrayList<>(tasks);
      bySize.sort(
          Comparator.comparingLong((Task t) -> t.conversation.messages().size()).reversed());
      for (Task t : bySize) {
        t.future =
            pool.submit(
                () -> {
                  StrategyRun r;
                  try {
                    r = replayer.replay(t.conversation, t.strategy);
                  } catch (RuntimeException e) {
                    throw new CompactorException(
                        "strategy "
                            + t.strategy.name()
                            + " failed on "
                            + t.file.file
                            + " ("
                            + t.conversation.name()
                            + "): "
                            + e,
                        e);
                  }
                  progress.progress(
                      done.addAndGet(t.conversation.callCount()),
                      totalCalls,
                      t.conversation.name(),
                      t.strategy.name());
                  return r;
                });
      }
      List<FileResult> results = new ArrayList<>();
      Map<String, Metrics> totals = new LinkedHashMap<>();
      names.forEach(n -> totals.put(n, Metrics.ZERO));
      for (Loaded l : loaded) {
        Map<String, List<StrategyRun>> runs = new LinkedHashMap<>();
        Map<String, Metrics> sums = new LinkedHashMap<>();
        names.forEach(
            n -> {
              runs.put(n, new ArrayList<>());
              sums.put(n, Metrics.ZERO);
            });
        for (Task t : tasks) {
          if (t.file != l) {
            continue;
          }
          StrategyRun r = get(t.future);
          runs.get(r.strategy()).add(r);
          sums.merge(r.strategy(), r.metrics(), Metrics::plus);
        }
        sums.forEach((n, m) -> totals.merge(n, m, Metrics::plus));
        RecordedConversation first = l.conversations.isEmpty() ? null : l.conversations.get(0);
        results.add(
            new FileResult(
                l.file,
                l.format,
                first == null ? "" : first.model(),
                first == null ? 0 : first.window(),
                first == null ? 0 : first.maxOutput(),
                first == null ? 0 : first.budget(),
                sums,
                runs));
      }
      return new ReplayReport(
          names,
          results,
          totals,
          options,
          Duration.ofNanos(System.nanoTime() - started),
          options.threads(),
          skipped);
    } finally {
      pool.shutdownNow();
      progress.finished();
    }
  }

  private List<Loaded> load(List<Path> files, ExecutorService pool, ProgressListener progress) {
    List<Future<Loaded>> futures = new ArrayList<>();
    for (Path f : files) {
      futures.add(
          pool.submit(
              () -> {
                progress.reading(f.toString());
                ImportResult r;
                try {
                  r = Importers.read(f);
                } catch (ImportException e) {
                  // One unreadable file does not stop the others; the report lists it.
                  return new Loaded(f.toString(), e.getMessage());
                }
                List<RecordedConversation> cs = new ArrayList<>();
                for (ImportedConversation c : r.conversations()) {
                  cs.add(RecordedConversation.prepare(f.toString(), c, options));
                }
                return new Loaded(f.toString(), r.format(), cs);
              }));
    }
    List<Loaded> out = new ArrayList<>();
    for (Future<Loaded> f : futures) {
      out.add(get(f));
    }
    return out;
  }

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompactorException("replay interrupted", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException re) {
        throw re;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new CompactorException(String.valueOf(c), c);
    }
  }

  private static Thread daemon(Runnable r) {
    Thread t = new Thread(r, "compactor-replay");
    t.setDaemon(true);
    return t;
  }

  private static final class Loaded {
    final String file;
    final String format;
    final List<RecordedConversation> conversations;

    /** Why the file could not be read, or null. */
    final String unreadable;

    Loaded(String file, String format, List<RecordedConversation> conversations) {
      this.file = file;
      this.format = format;
      this.conversations = conversations;
      this.unreadable = null;
    }

    Loaded(String file, String unreadable) {
      this.file = file;
      this.format = null;
      this.conversations = List.of();
      this.unreadable = unreadable;
    }
  }

  private static final class Task {
    final Loaded file;
    final RecordedConversation conversation;
    final ReplayStrategy strategy;
    Future<StrategyRun> future;

    Task(Loaded file, RecordedConversation conversation, ReplayStrategy strategy) {
      this.file = file;
      this.conversation = conversation;
      this.strategy = strategy;
    }
  }
}
