package dev.compactor.bench;

import dev.compactor.log.imports.ImportResult;
import dev.compactor.log.imports.Importers;
import dev.compactor.testkit.corpus.SharedCorpus;
import java.nio.file.Path;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * Importing transcripts: the gptme-2000 workload alone (one 7.29 M-character gzip JSON-lines file,
 * gptme importer named), and every file of the corpus ({@code shared/corpus}: 110 gzip files in
 * five formats, 309 conversations, about 21,000 messages) with format detection, as {@code
 * compactor inspect} and the replay read them. Decompression and JSON parsing included; the files
 * are in the page cache after the first iteration.
 *
 * <pre>
 * java -jar compactor-bench/target/benchmarks.jar ImportBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s
 * </pre>
 *
 * Add {@code -p corpus=/path/to/gptme-2000.conversation.jsonl.gz} when the corpus is not at {@code
 * shared/corpus/} in or above the working directory; the corpus directory is the one two levels
 * above that file.
 */
public class ImportBenchmark extends CorpusBenchmark {

  private Path gptme;
  private List<Path> files;

  @Setup
  public void setUp() {
    gptme = Corpus.locate(corpus);
    Path root = gptme.toAbsolutePath().getParent().getParent();
    files = SharedCorpus.transcripts(root);
    long messages = files.stream().mapToLong(f -> Importers.read(f).messageCount()).sum();
    System.out.printf("%ncorpus %s: %d files, %,d messages%n", root, files.size(), messages);
  }

  /** The gptme-2000 workload, format named. */
  @Benchmark
  public ImportResult gptme2000() {
    return Importers.read(gptme, "gptme");
  }

  /** Every file of the corpus, format detected; returns the messages read. */
  @Benchmark
  public long wholeCorpus() {
    long messages = 0;
    for (Path f : files) {
      messages += Importers.read(f).messageCount();
    }
    return messages;
  }
}
