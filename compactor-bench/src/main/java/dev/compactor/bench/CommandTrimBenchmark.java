package dev.compactor.bench;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.OutputArchive;
import dev.compactor.core.compaction.trim.TrimOutcome;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;

/**
 * The trim that {@code compactor compact gptme-2000.conversation.jsonl.gz --strategy trim --model
 * openai/gpt-4.1 --context-budget 800000} runs: the built-in {@code o200k_base} counter with the
 * conversation's counts cached (the command counts it before it compacts), limit 800,000 and the
 * manual trim's target of 70 % of it, keep_head 0 as the command has it; 144 outputs truncated to
 * head and tail (the command truncates 145: this archive's short references make each replacement a
 * little smaller). The archive names every save with a number of its own, as the conversation store
 * names each with its time, so every call's replacements are new messages whose counts are not
 * cached: each is counted from the lines its cut counted, as in the command. After the first call
 * the counter's short-text cache holds those lines, so this measures the trim's own work with its
 * counting all but free. What it leaves out of the command's {@code durationMs}: tokenizing the
 * kept lines the first time, writing the archived middles and the new view, and the interpreter and
 * JIT compilation of a fresh process, which are most of that figure.
 *
 * <p>Run from the project root:
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -jar compactor-bench/target/benchmarks.jar CommandTrimBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
public class CommandTrimBenchmark extends CorpusBenchmark {
  /** The command's {@code --context-budget}. */
  public static final int BUDGET = 800_000;

  private static final AtomicLong SAVES = new AtomicLong();

  private List<Message> messages;
  private CompressionConfig config;
  private final TrimProvider trim = new TrimProvider();

  @Setup
  public void setUp() {
    messages = Corpus.gptme2000(corpus);
    TokenCounter counter = TokenCounters.o200k();
    counter.countMessages(messages);
    OutputArchive numbered =
        (source, content) ->
            "Full output saved to: tool-outputs/compaction/" + SAVES.incrementAndGet() + ".txt";
    config =
        CompressionConfig.builder()
            .limit(BUDGET)
            .trimTargetRatio(0.7)
            .counter(counter)
            .archive(numbered)
            .build();
    TrimOutcome o = trim.trim(messages, config);
    System.out.printf(
        "%ntrim of gptme-2000 as compact runs it: %,d -> %,d tokens, %d outputs truncated%n",
        o.tokensBefore(), o.tokensAfter(), o.truncated());
  }

  /** The trim, counts of the input cached, its replacements counted anew. */
  @Benchmark
  public TrimOutcome trim() {
    return trim.trim(messages, config);
  }
}
