package dev.compactor.bench;

import dev.compactor.core.budget.ContextBudget;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.text.Identifiers;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.MessageOverhead;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.tokens.TokenizerFamily;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Compacting the gptme-2000 workload (2,000 messages, 7.29 M characters, 1.87 M cl100k tokens) the
 * way gptme's engine was measured on it (corpus README: window 1,000,000, keep_head 2; gptme took
 * 2.45 s to compact): budget = the default budget of a 1,000,000-token window ({@link
 * ContextBudget#defaultBudget}: 256,000), trim toward 70 % of it as the automatic policy does.
 *
 * <ul>
 *   <li>{@code cold}: token counting from scratch: each call counts with a new cl100k counter whose
 *       name is new too, so neither its caches nor the shared content-hash cache knows a single
 *       message or line, and the identifiers remembered per message are forgotten (the first
 *       compaction after a conversation is loaded in a new process).
 *   <li>{@code warm}: the counts of the conversation are cached, as they are in a running session
 *       (the per-turn check has counted every message already); what the compaction writes (stubs,
 *       cut outputs, extracts) is counted through the shared cache, where equal text from an
 *       earlier call hits. Every call redoes the whole first compaction of the raw log (150 outputs
 *       truncated, 49 answers compressed for trim).
 *   <li>{@code nextTurn}: the compaction after that one, as a session meets it: the view the first
 *       compaction made plus one more step (an assistant message, a 2,000-line tool output and a
 *       user message), counts cached; what was compacted before is not compacted again.
 * </ul>
 *
 * {@code strategy}: {@code trim} (rule-based, the counterpart of gptme's compaction) and {@code
 * summarize} (offline extractive checkpoint plus the recent tail, which the automatic policy falls
 * back to when a trim cannot reach the budget, as here).
 *
 * <p>Run from the project root:
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -jar compactor-bench/target/benchmarks.jar CompactionBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s
 * </pre>
 *
 * Add {@code -p corpus=/path/to/gptme-2000.conversation.jsonl.gz} when the corpus is not at {@code
 * shared/corpus/synthetic/} in or above the working directory.
 */
public class CompactionBenchmark extends CorpusBenchmark {
  /** The window the workload was measured with. */
  public static final long WINDOW = 1_000_000;

  /** Messages at the start that stay verbatim. */
  public static final int KEEP_HEAD = 2;

  @Param({"trim", "summarize"})
  public String strategy;

  private static final AtomicLong COLD = new AtomicLong();

  private List<Message> messages;
  private List<Message> nextTurn;
  private ContextProvider provider;
  private CompressionConfig warm;
  private long budget;

  @Setup
  public void setUp() {
    messages = Corpus.gptme2000(corpus);
    budget = ContextBudget.defaultBudget(WINDOW, 0, ContextBudget.DEFAULT_HEADROOM);
    provider = strategy.equals("trim") ? new TrimProvider() : new SummarizeProvider();
    TokenCounter counter = TokenCounters.cl100k();
    counter.countMessages(messages); // the per-turn check has counted everything
    warm = config(counter);
    CompactionResult r = provider.compress(messages, warm);
    long after = counter.countMessages(r.messages());
    System.out.printf(
        "%n%s on gptme-2000: %,d -> %,d tokens (budget %,d), %d messages; %s%n",
        strategy,
        counter.countMessages(messages),
        after,
        budget,
        r.messages().size(),
        r.limitations());
    nextTurn = new ArrayList<>(r.messages());
    Instant t = Instant.now();
    nextTurn.add(
        Message.builder(Role.ASSISTANT)
            .id("next-call")
            .content("Let me run the tests again.")
            .toolCalls(List.of(new ToolCall("next-call-1", "shell", "{\"command\":\"mvn test\"}")))
            .timestamp(t)
            .build());
    StringBuilder output = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      output.append("[INFO] Running com.acme.Test").append(i).append(" ... ok\n");
    }
    nextTurn.add(
        Message.builder(Role.TOOL)
            .id("next-result")
            .toolCallId("next-call-1")
            .content(output.toString())
            .timestamp(t)
            .build());
    nextTurn.add(Message.builder(Role.USER).id("next-user").content("Go on.").timestamp(t).build());
    nextTurn = List.copyOf(nextTurn);
    counter.countMessages(nextTurn); // counted by the per-turn check as the step arrived
    CompactionResult next = provider.compress(nextTurn, warm);
    System.out.printf(
        "next turn: %,d -> %,d tokens, %d messages; %s%n",
        counter.countMessages(nextTurn),
        counter.countMessages(next.messages()),
        next.messages().size(),
        next.limitations());
  }

  private CompressionConfig config(TokenCounter counter) {
    CompressionConfig.Builder b =
        CompressionConfig.builder().limit((int) budget).keepHead(KEEP_HEAD).counter(counter);
    // trim aims at 70 % of the budget as the automatic policy asks; a summary aims at the budget
    return b.trimTargetRatio(strategy.equals("trim") ? 0.7 : 1.0).build();
  }

  /** Compaction with every token counted from scratch. */
  @Benchmark
  public CompactionResult cold() {
    Identifiers.forgetAll(); // nor are the messages' identifiers known in a new process
    TokenCounter fresh =
        TokenCounters.custom(
            "cl100k-cold-" + COLD.incrementAndGet(),
            TokenizerFamily.CL100K_BASE,
            ColdTokenizers.of(TokenizerFamily.CL100K_BASE),
            MessageOverhead.OPENAI);
    return provider.compress(messages, config(fresh));
  }

  /** Compaction with the conversation's counts cached. */
  @Benchmark
  public CompactionResult warm() {
    return provider.compress(messages, warm);
  }

  /** The next compaction: the compacted view plus one more step, counts cached. */
  @Benchmark
  public CompactionResult nextTurn() {
    return provider.compress(nextTurn, warm);
  }
}
