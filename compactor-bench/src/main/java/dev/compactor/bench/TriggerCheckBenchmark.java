package dev.compactor.bench;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.MasterLog;
import dev.compactor.core.view.View;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;

/**
 * The per-turn trigger check on the gptme-2000 workload (2,000 messages, 1.87 M cl100k tokens)
 * after one more message, with cl100k counts of the earlier messages cached as in a running
 * session; gptme's engine took 1.33 s to decide whether to compact the same workload (corpus
 * README).
 *
 * <ul>
 *   <li>{@code afterTurn}: {@link AutoCompactor#afterTurn} on the conversation plus a new user
 *       message (a fresh one per call, so it is really tokenized and hashed): resolving the active
 *       view, the pending-call check and the measurement, below the budget so that nothing else
 *       runs (budget 3,000,000 here; throttle off, so every call does the full check).
 *   <li>{@code measure}: {@link ContextMeter#measure} alone on the same list.
 * </ul>
 *
 * <p>Run from the project root:
 *
 * <pre>
 * mvn -q -pl compactor-bench -am package -DskipTests
 * java -jar compactor-bench/target/benchmarks.jar TriggerCheckBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s
 * </pre>
 *
 * Add {@code -p corpus=/path/to/gptme-2000.conversation.jsonl.gz} when the corpus is not at {@code
 * shared/corpus/synthetic/} in or above the working directory.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TriggerCheckBenchmark extends CorpusBenchmark {
  private static final String MODEL = "openai/gpt-4";
  private static final long BUDGET = 3_000_000;

  private TurnConversation conversation;
  private AutoCompactor auto;
  private PolicyContext ctx;
  private ContextMeter meter;
  private long calls;

  @Setup
  public void setUp() {
    List<Message> messages = Corpus.gptme2000(corpus);
    TokenCounter counter = TokenCounters.cl100k();
    conversation = new TurnConversation(messages);
    ProviderRegistry registry = ProviderRegistry.global();
    auto =
        new AutoCompactor(
            conversation,
            registry.get(TrimProvider.NAME),
            registry.get(SummarizeProvider.NAME),
            (m, c) -> 1.0,
            new AutoCompactor.Settings(0.9, 0.7, 0.10, 20, Duration.ZERO),
            Clock.systemUTC(),
            CompactionListener.NONE);
    ctx = PolicyContext.of(MODEL, BUDGET, CompressionConfig.builder().counter(counter).build());
    meter = new ContextMeter(counter);
    nextTurn();
    CompactionOutcome o = auto.afterTurn(ctx);
    if (!(o instanceof CompactionOutcome.NotNeeded n) || !n.reason().contains("below")) {
      throw new IllegalStateException("benchmark setup: expected below the budget, got " + o);
    }
    meter.measure(conversation.activeMessages(), MODEL);
  }

  private void nextTurn() {
    conversation.turn = Message.user("and one more question #" + calls++);
  }

  /** The automatic policy's check after one more message, below the budget. */
  @Benchmark
  public CompactionOutcome afterTurn() {
    nextTurn();
    return auto.afterTurn(ctx);
  }

  /** The measurement alone after one more message. */
  @Benchmark
  public long measure() {
    nextTurn();
    return meter.measure(conversation.activeMessages(), MODEL).tokens();
  }

  /**
   * The workload as an in-memory conversation whose active view ends with one more message that
   * each call replaces: the conversation does not grow over millions of calls, while every call
   * pays what a real one does (resolving the 2,000 entries of the view).
   */
  static final class TurnConversation implements Conversation {
    private final InMemoryConversation base;
    Message turn;

    TurnConversation(List<Message> messages) {
      base = new InMemoryConversation(new InMemoryMasterLog(messages));
    }

    @Override
    public MasterLog master() {
      return base.master();
    }

    @Override
    public View activeView() {
      return base.activeView();
    }

    @Override
    public List<View> views() {
      return base.views();
    }

    @Override
    public void append(Message message) {
      throw new UnsupportedOperationException("the benchmark replaces the last turn");
    }

    @Override
    public List<Message> activeMessages() {
      List<Message> resolved = base.activeMessages();
      List<Message> out = new ArrayList<>(resolved.size() + 1);
      out.addAll(resolved);
      out.add(turn);
      return out;
    }

    @Override
    public List<Message> resolve(View view) {
      return base.resolve(view);
    }

    @Override
    public void switchTo(View next) {
      throw new UnsupportedOperationException("below the budget: no compaction");
    }

    @Override
    public String nextViewId() {
      return base.nextViewId();
    }

    @Override
    public List<Message> recover(MessageId id) {
      return base.recover(id);
    }
  }
}
