package dev.compactor.testkit.corpus;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the shared corpus of real transcripts that corpus tests read, and decides what a test does
 * when it is missing: on a user's clone (no corpus) the test is skipped with a message; in CI
 * (environment variable {@code CI=true}, which CI services set), where the corpus must be present,
 * the test fails, so a corpus test can never pass by skipping silently.
 *
 * <p>The corpus is looked for at {@code -Dcompactor.corpus=DIR} when set, else at {@code
 * ../shared/corpus} and {@code ../../shared/corpus} relative to the working directory (the
 * repository root or a module directory).
 *
 * <pre>{@code
 * Path root = SharedCorpus.require("CorpusImportTest");
 * }</pre>
 */
public final class SharedCorpus {
  /** The environment variable that marks a CI run when it is {@code true}. */
  public static final String CI_VARIABLE = "CI";

  private SharedCorpus() {}

  /** The corpus directory, if present. */
  public static Optional<Path> find() {
    String prop = System.getProperty("compactor.corpus");
    List<String> candidates =
        prop != null && !prop.isBlank()
            ? List.of(prop)
            : List.of("../shared/corpus", "../../shared/corpus");
    for (String c : candidates) {
      Path p = Path.of(c);
      if (Files.isDirectory(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /**
   * The corpus directory; when it is absent, skips the calling test (or fails it in CI).
   *
   * @param test the test's name, for the message
   */
  public static Path require(String test) {
    Optional<Path> root = find();
    assumePresent(
        root.isPresent(),
        test
            + ": the shared corpus was not found at "
            + (System.getProperty("compactor.corpus") != null
                ? System.getProperty("compactor.corpus")
                : "../shared/corpus or ../../shared/corpus")
            + " (from "
            + Path.of("").toAbsolutePath()
            + ")");
    return root.get();
  }

  /**
   * The transcript files below {@code root}: every regular file whose name ends in {@code .gz}, in
   * path order.
   *
   * @throws UncheckedIOException when {@code root} cannot be listed
   */
  public static List<Path> transcripts(Path root) {
    try (Stream<Path> s = Files.walk(root)) {
      return s.filter(Files::isRegularFile)
          .filter(p -> p.toString().endsWith(".gz"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the corpus " + root, e);
    }
  }

  /** Whether this run is a CI run ({@code CI=true} in the environment). */
  public static boolean inCi() {
    return inCi(System.getenv());
  }

  static boolean inCi(Map<String, String> env) {
    String v = env.get(CI_VARIABLE);
    return v != null && v.strip().toLowerCase(Locale.ROOT).equals("true");
  }

  /**
   * Does nothing when {@code present}; otherwise skips the calling test with {@code what} as the
   * message, or, in CI, fails it.
   *
   * @param present whether the corpus files the test needs are there
   * @param what what is missing, e.g. {@code "CorpusReplayTest: 3 corpus files not found"}
   */
  public static void assumePresent(boolean present, String what) {
    assumePresent(present, what, System.getenv());
  }

  static void assumePresent(boolean present, String what, Map<String, String> env) {
    if (present) {
      return;
    }
    if (inCi(env)) {
      Assertions.fail(
          what
              + "; CI=true, so the corpus must be present (check out the shared corpus next to the"
              + " repository, or set -Dcompactor.corpus)");
    }
    System.out.println("SKIPPED " + what);
    Assumptions.abort(what + ": skipping (the corpus is not part of the project)");
  }
}
