package dev.compactor.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Base of the suite's benchmarks, which all read the corpus: the JMH settings they share (average
 * time, 2 warm-up and 5 measured iterations of 2 s, one fork, milliseconds unless a benchmark names
 * another unit) and the {@code corpus} parameter. JMH inherits both.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public abstract class CorpusBenchmark {
  /**
   * The gptme-2000 workload file ({@code -p corpus=…}); empty: looked for by {@link Corpus#locate}.
   */
  @Param({""})
  public String corpus;
}
