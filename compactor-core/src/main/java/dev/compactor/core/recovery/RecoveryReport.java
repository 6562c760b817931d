package dev.compactor.core.recovery;

import dev.compactor.core.policy.AppliedCompaction;
import dev.compactor.core.view.View;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one {@link OverflowRecovery} call did: every request it sent (the original one and each
 * retry), with the view and the tokens of each, and the compaction it kept, if any.
 *
 * @param originalViewId the view that was active when the call began
 * @param attempts every request sent, in order; the first is the original request (number 0)
 * @param compaction the journal entry of the view that was kept, when a retry succeeded; null when
 *     the first request succeeded or recovery failed
 */
public record RecoveryReport(
    String originalViewId, List<Attempt> attempts, AppliedCompaction compaction) {

  public RecoveryReport {
    Objects.requireNonNull(originalViewId, "originalViewId");
    attempts = List.copyOf(attempts);
    if (attempts.isEmpty()) {
      throw new IllegalArgumentException("a recovery report needs at least the original attempt");
    }
  }

  /** Retries sent after the original request (0 when it fit). */
  public int retries() {
    return attempts.size() - 1;
  }

  /** Whether the provider rejected the original request as too long (recovery happened). */
  public boolean overflowed() {
    return attempts.get(0).outcome() == Outcome.OVERFLOW;
  }

  /** Whether a retry was answered and its smaller view is now active. */
  public boolean recovered() {
    return compaction != null;
  }

  /** The compaction kept, when a retry succeeded. */
  public Optional<AppliedCompaction> compactionReport() {
    return Optional.ofNullable(compaction);
  }

  /** Input tokens (counted by the policy's counter) of each attempt, in order. */
  public List<Long> tokensPerAttempt() {
    return attempts.stream().map(Attempt::tokens).toList();
  }

  /** How an attempt's input was prepared. */
  public enum Rung {
    /** The active view as it was. */
    ORIGINAL,
    /** The trim strategy toward the target, without the automatic policy's 10 % savings gate. */
    TRIM,
    /** Old whole steps removed, replaced by one recoverable marker per removed run. */
    DROP_STEPS
  }

  /** How the provider answered an attempt. */
  public enum Outcome {
    /** A response arrived. */
    ANSWERED,
    /** The prompt did not fit, with no output. */
    OVERFLOW,
    /** The prompt did not fit after output had already streamed: never retried. */
    PARTIAL_OUTPUT,
    /** Another error; recovery stopped and the error was rethrown. */
    ERROR
  }

  /**
   * One request sent.
   *
   * @param number 0 for the original request, then 1, 2, … for the retries
   * @param rung how the input was prepared
   * @param view the view whose messages were sent (for retries a candidate view, which became
   *     active only if it was the one answered)
   * @param target the token target the input was shrunk toward; 0 for the original request
   * @param tokens the input's tokens, counted by the policy's counter
   * @param messages provider-visible messages sent
   * @param removedMessages provider-visible original messages no longer sent as they were (replaced
   *     by a marker or trimmed)
   * @param outcome how the provider answered
   * @param reportedPromptTokens the prompt size the provider reported with an overflow, or empty
   * @param reportedContextWindow the window the provider reported with an overflow, or empty
   */
  public record Attempt(
      int number,
      Rung rung,
      View view,
      long target,
      long tokens,
      int messages,
      int removedMessages,
      Outcome outcome,
      OptionalLong reportedPromptTokens,
      OptionalLong reportedContextWindow) {
    public Attempt {
      Objects.requireNonNull(rung, "rung");
      Objects.requireNonNull(view, "view");
      Objects.requireNonNull(outcome, "outcome");
      reportedPromptTokens =
          reportedPromptTokens == null ? OptionalLong.empty() : reportedPromptTokens;
      reportedContextWindow =
          reportedContextWindow == null ? OptionalLong.empty() : reportedContextWindow;
    }

    Attempt answered(Outcome o, OptionalLong prompt, OptionalLong window) {
      return new Attempt(
          number, rung, view, target, tokens, messages, removedMessages, o, prompt, window);
    }
  }
}
