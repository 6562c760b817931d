package dev.compactor.core.recovery;

import dev.compactor.core.model.ContextOverflowException;
import java.util.Objects;

/**
 * Overflow recovery gave up: every allowed retry was still too long, or no smaller input could be
 * prepared without touching the protected messages. The conversation's active view is the one that
 * was active before the call, unchanged. It is still a {@link ContextOverflowException} (the prompt
 * does not fit), carrying the last overflow's counts and, as its cause, the last overflow.
 */
public class RecoveryFailedException extends ContextOverflowException {
  private static final long serialVersionUID = 1L;

  private final transient RecoveryReport report;

  /**
   * @param message why recovery stopped
   * @param last the last overflow the provider answered
   * @param report every attempt made
   */
  public RecoveryFailedException(
      String message, ContextOverflowException last, RecoveryReport report) {
    super(
        message,
        last.error(),
        last.promptTokens(),
        last.contextWindow(),
        null,
        Objects.requireNonNull(last, "last"));
    this.report = Objects.requireNonNull(report, "report");
  }

  /** Every attempt made, with its tokens. */
  public RecoveryReport report() {
    return report;
  }
}
