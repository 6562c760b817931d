package dev.compactor.bench;

import dev.compactor.core.message.Message;
import dev.compactor.log.imports.Importers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;

/**
 * Loads the benchmark workload {@code shared/corpus/synthetic/gptme-2000.conversation.jsonl.gz}
 * (generated; 2,000 messages, 7.29 M characters) with the gptme importer: tool outputs become
 * {@code TOOL} results paired with calls on the assistant messages, as in every other use.
 */
public final class Corpus {
  /** System property naming the workload file. */
  public static final String PROPERTY = "compactor.bench.corpus";

  /** The default location, relative to the project's root (searched for upwards). */
  public static final String DEFAULT = "shared/corpus/synthetic/gptme-2000.conversation.jsonl.gz";

  private Corpus() {}

  /**
   * The workload's messages.
   *
   * @param path a file path, or empty for the {@value #PROPERTY} system property, else {@value
   *     #DEFAULT} found in the working directory or any directory above it
   * @throws IllegalStateException naming what was tried when the file is absent
   */
  public static List<Message> gptme2000(String path) {
    return Importers.read(locate(path), "gptme").single().messages();
  }

  static Path locate(String path) {
    String given = path != null && !path.isBlank() ? path : System.getProperty(PROPERTY);
    if (given != null && !given.isBlank()) {
      Path p = Path.of(given);
      if (!Files.isRegularFile(p)) {
        throw new IllegalStateException("benchmark corpus not found: " + p.toAbsolutePath());
      }
      return p;
    }
    return upwards(
        DEFAULT,
        Files::isRegularFile,
        "benchmark corpus",
        "pass -p corpus=/path/to/gptme-2000.conversation.jsonl.gz or -D" + PROPERTY + "=...");
  }

  /**
   * {@code relative} resolved against the working directory or the nearest directory above it where
   * it passes {@code test}.
   *
   * @param what the thing looked for, for the error
   * @param hint what to do instead, for the error
   * @throws IllegalStateException naming where it was looked for when it is in none
   */
  static Path upwards(String relative, Predicate<Path> test, String what, String hint) {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path p = dir.resolve(relative);
      if (test.test(p)) {
        return p;
      }
    }
    throw new IllegalStateException(
        what
            + " "
            + relative
            + " not found in "
            + Path.of("").toAbsolutePath()
            + " or above; "
            + hint);
  }
}
