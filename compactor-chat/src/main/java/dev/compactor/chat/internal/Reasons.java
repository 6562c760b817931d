package dev.compactor.chat.internal;

import java.util.List;

/**
 * The {@code reason} values of the compaction report: why nothing was compacted on a call. A reason
 * is present exactly when nothing was compacted.
 *
 * <table>
 *   <caption>Reasons</caption>
 *   <tr><th>value</th><th>section</th><th>meaning</th></tr>
 *   <tr><td>{@value #DISABLED}</td><td>both</td><td>the kind is switched off
 *       ({@code enabled: false})</td></tr>
 *   <tr><td>{@value #NOT_SUBMITTED}</td><td>both</td><td>the call did not go to the model
 *       ({@code submit_to_model: false})</td></tr>
 *   <tr><td>{@value #TOOL_RESULT}</td><td>summary</td><td>the call brought a tool result;
 *       summarizing now could separate it from its call, so it runs on the next normal call</td>
 *       </tr>
 *   <tr><td>{@value #HISTORY_REPLACED}</td><td>summary</td><td>the call replaced the history
 *       ({@code message_operation: set}); there was no existing history left to summarize</td></tr>
 *   <tr><td>{@value #BELOW_THRESHOLD}</td><td>summary</td><td>neither activation threshold was
 *       reached</td></tr>
 *   <tr><td>{@value #NOT_ENOUGH_MESSAGES}</td><td>summary</td><td>a threshold was reached but
 *       fewer than two messages are outside the kept ones (main system message, last messages,
 *       widened to keep tool calls with their results)</td></tr>
 *   <tr><td>{@value #SUMMARIZE_FAILED}</td><td>summary</td><td>summarization failed; only in the
 *       report of a failed call</td></tr>
 *   <tr><td>{@value #NOT_RESPONSES_API}</td><td>provider</td><td>the model does not use the
 *       OpenAI Responses API, the only one provider compaction works with; the setting is
 *       ignored</td></tr>
 *   <tr><td>{@value #PROVIDER_DID_NOT_COMPACT}</td><td>provider</td><td>the threshold was sent but
 *       the provider's response carried no compaction (the wording of the specification)</td></tr>
 * </table>
 */
public final class Reasons {
  private Reasons() {}

  public static final String DISABLED = "disabled";
  public static final String NOT_SUBMITTED = "not_submitted";
  public static final String TOOL_RESULT = "tool_result";
  public static final String HISTORY_REPLACED = "history_replaced";
  public static final String BELOW_THRESHOLD = "below_threshold";
  public static final String NOT_ENOUGH_MESSAGES = "not_enough_messages";
  public static final String SUMMARIZE_FAILED = "summarize_failed";
  public static final String NOT_RESPONSES_API = "not_responses_api";
  public static final String PROVIDER_DID_NOT_COMPACT = "provider did not compact";

  /** Every reason, in the order of the table above. */
  public static final List<String> ALL =
      List.of(
          DISABLED,
          NOT_SUBMITTED,
          TOOL_RESULT,
          HISTORY_REPLACED,
          BELOW_THRESHOLD,
          NOT_ENOUGH_MESSAGES,
          SUMMARIZE_FAILED,
          NOT_RESPONSES_API,
          PROVIDER_DID_NOT_COMPACT);
}
