package dev.compactor.bench;

import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TextTokenizer;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.tokens.TokenizerFamily;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Raw tokenizer throughput: tokenizing the text of every message of the gptme-2000 workload (2,000
 * messages, 7.29 M characters) with no cache, per encoding. gptme (tiktoken cl100k, Python) takes
 * 0.65 s for the same count on this kind of machine (corpus README).
 *
 * <p>Run from the project root:
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -jar compactor-bench/target/benchmarks.jar TokenCountingBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s
 * </pre>
 *
 * Add {@code -p corpus=/path/to/gptme-2000.conversation.jsonl.gz} when the corpus is not at {@code
 * shared/corpus/synthetic/} in or above the working directory.
 */
public class TokenCountingBenchmark extends CorpusBenchmark {

  @Param({"cl100k_base", "o200k_base", "estimate"})
  public String encoding;

  private List<String> texts;
  private TextTokenizer tokenizer;

  @Setup
  public void setUp() {
    texts = Corpus.gptme2000(corpus).stream().map(Message::content).toList();
    // jtokkit itself for the BPE encodings: the counters' own countText caches short texts
    tokenizer =
        switch (encoding) {
          case "cl100k_base", "o200k_base" -> ColdTokenizers.of(TokenizerFamily.parse(encoding));
          case "estimate" -> TokenCounters.estimate()::countText;
          default -> throw new IllegalArgumentException("unknown encoding " + encoding);
        };
  }

  /** Tokens of all 2,000 message texts, uncached. */
  @Benchmark
  public long countAllTexts() {
    long total = 0;
    for (String t : texts) {
      total += tokenizer.count(t);
    }
    return total;
  }
}
