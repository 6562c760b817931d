package dev.compactor.replay;

/**
 * Hears how far a {@link ReplayRunner} got, e.g. to draw a progress bar. Called from the runner's
 * worker threads, so implementations must be thread-safe; calls are frequent and must be cheap.
 */
public interface ProgressListener {

  /** A file is being read and prepared. */
  default void reading(String file) {}

  /**
   * Replay progress in model calls: {@code done} of {@code total} (calls times strategies), the
   * last finished conversation and strategy.
   */
  void progress(long done, long total, String conversation, String strategy);

  /** The run is over (also after a failure). */
  default void finished() {}

  /** A listener that ignores everything. */
  ProgressListener NONE = (done, total, conversation, strategy) -> {};
}
