package dev.compactor.replay;

/**
 * Receives what a {@link ReplaySession} did, for the scorecard's counters. Called on the session's
 * thread.
 */
public interface ReplayEvents {

  /** A compaction made a new view of {@code tokensAfter} tokens from {@code tokensBefore}. */
  void compacted(String strategy, long tokensBefore, long tokensAfter);

  /** The policy appended a reminder message to the conversation. */
  void reminded();

  /**
   * A summary was produced. {@code inputTokens} and {@code outputTokens} are what a model-backed
   * summarizer is sent and returns (the covered messages, the earlier checkpoint and the
   * instructions; the checkpoint), whether or not a model actually ran.
   */
  void summaryCall(long inputTokens, long outputTokens);

  /**
   * A compaction was chosen by a cost plan ({@link dev.compactor.core.policy.CostPlanner}): its
   * predicted saving is compared with what the rest of the replay realises.
   */
  default void planned(
      dev.compactor.core.policy.CostPlanner planner,
      dev.compactor.core.policy.CostPlanner.Plan plan) {}

  /** A compaction was attempted and failed; the view is unchanged. */
  void failed(String strategy, String reason);

  /** Events that go nowhere. */
  ReplayEvents NONE =
      new ReplayEvents() {
        @Override
        public void compacted(String strategy, long tokensBefore, long tokensAfter) {}

        @Override
        public void reminded() {}

        @Override
        public void summaryCall(long inputTokens, long outputTokens) {}

        @Override
        public void failed(String strategy, String reason) {}
      };
}
