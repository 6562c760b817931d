package dev.compactor.core.compaction.trim;

/**
 * What a full trim would save, estimated without building anything: the automatic policy compares
 * {@link #ratio()} with 10 % to choose between trim and summarize.
 *
 * @param storedTokens tokens of the messages as they are
 * @param savedTokens estimated tokens a trim without a limit would remove
 * @param staleOutputs tool outputs phase 0 would stub
 * @param largeOutputs tool outputs phase 2 would truncate
 * @param compressibleMessages assistant messages phase 3 would compress
 */
public record SavingsEstimate(
    long storedTokens,
    long savedTokens,
    int staleOutputs,
    int largeOutputs,
    int compressibleMessages) {

  /** {@code savedTokens / storedTokens}, 0 for an empty conversation. */
  public double ratio() {
    return storedTokens <= 0 ? 0 : savedTokens / (double) storedTokens;
  }
}
