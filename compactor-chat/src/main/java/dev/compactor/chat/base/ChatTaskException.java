package dev.compactor.chat.base;

import dev.compactor.core.CompactorException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A chat task call failed. Whatever the code, the call changed nothing: no message, setting,
 * counter or summary of that call was stored.
 *
 * <p>{@link #code()} says what kind of failure it is; {@link #report()} carries the compaction
 * report when the failure happened after compaction was decided (a failed summarization reports
 * {@code reason: "summarize_failed"}).
 */
public class ChatTaskException extends CompactorException {
  private static final long serialVersionUID = 1L;

  /** The kinds of failure, with their wire names ({@code invalid_request}, …). */
  public enum Code {
    /** The request is malformed: unknown field, wrong type, bad message, missing model… */
    INVALID_REQUEST,
    /** The compaction settings are invalid; nothing of them was stored. */
    INVALID_SETTINGS,
    /** {@code stop_on_high_messages} tripped: the chat would hold too many messages. */
    FAILSAFE_MESSAGES,
    /** {@code stop_on_high_interactions} tripped: the chat made too many model calls. */
    FAILSAFE_INTERACTIONS,
    /** Summary compaction (or on-demand summarization) failed. */
    SUMMARIZE_FAILED,
    /** The prompt did not fit the model's context window (and recovery, if any, gave up). */
    CONTEXT_OVERFLOW,
    /** The model call failed for another reason (authentication, unknown model, 5xx…). */
    MODEL_ERROR,
    /**
     * Another process changed the chat while this call ran (SQLite only: calls of one process never
     * interleave, calls of two processes on one SQLite file are detected, not serialized).
     */
    CONFLICT,
    /** The chat does not exist (on-demand summarization, show). */
    NOT_FOUND;

    /** Lower-case wire name, e.g. {@code failsafe_messages}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Code code;
  private final transient CompactionDetails report;

  public ChatTaskException(Code code, String message) {
    this(code, message, null, null);
  }

  public ChatTaskException(Code code, String message, Throwable cause) {
    this(code, message, null, cause);
  }

  /**
   * @param report the compaction report up to the failure, or null
   */
  public ChatTaskException(Code code, String message, CompactionDetails report, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
    this.report = report;
  }

  public Code code() {
    return code;
  }

  /** The compaction report of the failed call, when compaction had been decided. */
  public Optional<CompactionDetails> report() {
    return Optional.ofNullable(report);
  }
}
