package dev.compactor.core.view;

/**
 * One broken invariant of a message list.
 *
 * @param kind what is broken
 * @param index position of the offending message in the list that was checked
 * @param messageId id of the offending message
 * @param detail a sentence that names the ids involved
 */
public record Violation(Kind kind, int index, String messageId, String detail) {

  /** The invariants {@link ViewValidator} checks. */
  public enum Kind {
    /** A tool result whose call no earlier assistant message made. */
    ORPHAN_RESULT,
    /** A tool call with no result, and it is not the pending last turn. */
    MISSING_RESULT,
    /** A result that does not directly follow its call's assistant message and sibling results. */
    SPLIT_PARALLEL,
    /** A second result for the same call. */
    DUPLICATE_RESULT,
    /** The same call id on two calls. */
    DUPLICATE_CALL,
    /** A tool message without a call id. */
    TOOL_RESULT_WITHOUT_ID,
    /** A timestamp earlier than the one before it. */
    TIMESTAMP_ORDER,
    /** A role sequence the target provider rejects. */
    ROLE
  }

  @Override
  public String toString() {
    return kind + " at " + index + " (" + messageId + "): " + detail;
  }
}
