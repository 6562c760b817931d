package dev.compactor.bench;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import dev.compactor.core.tokens.ContextMeasurement;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.MessageOverhead;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.tokens.TokenizerFamily;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The per-turn check: measuring the gptme-2000 conversation (2,000 messages, 7.29 M characters,
 * with a usage anchor on the last assistant response) after one more message.
 *
 * <ul>
 *   <li>{@code incremental}: a warm {@link ContextMeter} sees the conversation plus one new user
 *       message (a fresh one per call, so it is really tokenized): O(n) reference comparisons +
 *       O(new message).
 *   <li>{@code scratchWarmCounts}: a new meter each call, message counts already cached: re-hashes
 *       the whole prefix for the anchor check, O(history) hashing, no tokenizing.
 *   <li>{@code scratchCold}: a new meter and a counter with empty caches: tokenizes everything.
 * </ul>
 *
 * <p>Run from the project root:
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -jar compactor-bench/target/benchmarks.jar ContextMeasureBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s
 * </pre>
 *
 * Add {@code -p corpus=/path/to/gptme-2000.conversation.jsonl.gz} when the corpus is not at {@code
 * shared/corpus/synthetic/} in or above the working directory.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ContextMeasureBenchmark extends CorpusBenchmark {
  private static final String MODEL = "openai/gpt-4o";

  @Param({"cl100k_base", "o200k_base", "estimate"})
  public String encoding;

  private List<Message> conversation; // the workload + one slot for the new message
  private ContextMeter warm;
  private TokenCounter counter;
  private long calls;

  @Setup
  public void setUp() {
    List<Message> base = new ArrayList<>(Corpus.gptme2000(corpus));
    // anchor the last assistant response as a provider would have reported it
    int last = base.size() - 1;
    while (base.get(last).role() != Role.ASSISTANT) {
      last--;
    }
    List<Message> prefix = base.subList(0, last);
    Message anchored =
        base.get(last).toBuilder()
            .metadata(
                MessageMetadata.EMPTY
                    .withModel(MODEL)
                    .withUsage(new Usage(2_000, 500, 1_800_000, 10_000, 0))
                    .withInput(new InputFingerprint(last, Digests.prefix(prefix), MODEL)))
            .build();
    base.set(last, anchored);
    counter = counter(encoding);
    conversation = base;
    conversation.add(Message.user("placeholder"));
    warm = new ContextMeter(counter);
    ContextMeasurement m = warm.measure(conversation, MODEL);
    if (!m.anchored()) {
      throw new IllegalStateException("benchmark setup: anchor rejected: " + m.rejectedReason());
    }
  }

  @Benchmark
  public long incremental() {
    conversation.set(conversation.size() - 1, Message.user("and one more question #" + calls++));
    return warm.measure(conversation, MODEL).tokens();
  }

  @Benchmark
  public long scratchWarmCounts() {
    return new ContextMeter(counter).measure(conversation, MODEL).tokens();
  }

  @Benchmark
  public long scratchCold() {
    TokenCounter cold =
        encoding.equals("estimate")
            ? TokenCounters.estimate(TokenCounters.DEFAULT_CHARS_PER_TOKEN)
            : TokenCounters.custom(
                encoding + "-cold-" + calls++,
                TokenizerFamily.parse(encoding),
                ColdTokenizers.of(TokenizerFamily.parse(encoding)),
                MessageOverhead.OPENAI);
    return new ContextMeter(cold).measure(conversation, MODEL).tokens();
  }

  private static TokenCounter counter(String encoding) {
    return switch (encoding) {
      case "cl100k_base" -> TokenCounters.cl100k();
      case "o200k_base" -> TokenCounters.o200k();
      case "estimate" -> TokenCounters.estimate();
      default -> throw new IllegalArgumentException("unknown encoding " + encoding);
    };
  }
}
