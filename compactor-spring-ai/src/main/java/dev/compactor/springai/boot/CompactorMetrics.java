package dev.compactor.springai.boot;

import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.policy.CompactionListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Compactions as Micrometer meters, tagged by {@code strategy} (the kind: {@code mask}, {@code
 * trim}, {@code summarize}, …) and {@code trigger} ({@code auto}, {@code manual}, {@code
 * overflow}):
 *
 * <ul>
 *   <li>{@value #COMPACTIONS} — a counter of compactions;
 *   <li>{@value #TOKENS_BEFORE} and {@value #TOKENS_AFTER} — distribution summaries of the context
 *       size before and after each one (base unit {@code tokens});
 *   <li>{@value #TOKENS_SAVED} — a counter of the tokens compactions removed.
 * </ul>
 *
 * The auto-configuration registers it as the compactor's listener when the application has a {@link
 * MeterRegistry} bean. Thread-safe.
 */
public final class CompactorMetrics implements CompactionListener {
  public static final String COMPACTIONS = "compactor.compactions";
  public static final String TOKENS_BEFORE = "compactor.compaction.tokens.before";
  public static final String TOKENS_AFTER = "compactor.compaction.tokens.after";
  public static final String TOKENS_SAVED = "compactor.compaction.tokens.saved";

  private final MeterRegistry registry;

  public CompactorMetrics(MeterRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  @Override
  public void compacted(AppliedCompaction r) {
    String strategy = r.strategy();
    String trigger = r.trigger().wireName();
    Counter.builder(COMPACTIONS)
        .description("Compactions of conversations")
        .tag("strategy", strategy)
        .tag("trigger", trigger)
        .register(registry)
        .increment();
    DistributionSummary.builder(TOKENS_BEFORE)
        .description("Context tokens before a compaction")
        .baseUnit("tokens")
        .tag("strategy", strategy)
        .tag("trigger", trigger)
        .register(registry)
        .record(r.tokensBefore());
    DistributionSummary.builder(TOKENS_AFTER)
        .description("Context tokens after a compaction")
        .baseUnit("tokens")
        .tag("strategy", strategy)
        .tag("trigger", trigger)
        .register(registry)
        .record(r.tokensAfter());
    Counter.builder(TOKENS_SAVED)
        .description("Context tokens removed by compactions")
        .baseUnit("tokens")
        .tag("strategy", strategy)
        .tag("trigger", trigger)
        .register(registry)
        .increment(Math.max(0, r.tokensBefore() - r.tokensAfter()));
  }
}
