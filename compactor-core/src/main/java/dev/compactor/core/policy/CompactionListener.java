package dev.compactor.core.policy;

/**
 * Receives every compaction a policy makes, e.g. to write the conversation's journal. Called after
 * the new view is active.
 */
@FunctionalInterface
public interface CompactionListener {
  void compacted(AppliedCompaction report);

  /** A listener that does nothing. */
  CompactionListener NONE = report -> {};
}
