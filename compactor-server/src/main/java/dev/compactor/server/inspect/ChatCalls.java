package dev.compactor.server.inspect;

import static dev.compactor.server.inspect.Html.esc;
import static dev.compactor.server.inspect.Html.n;

import dev.compactor.chat.store.CallRecord;
import java.util.List;

/** The chat page's table of calls: one row per stored chat task call and its compaction report. */
final class ChatCalls {
  private ChatCalls() {}

  static String section(List<CallRecord> calls) {
    StringBuilder b = new StringBuilder("<section id=\"calls\"><h2>Calls</h2>");
    if (calls.isEmpty()) {
      b.append("<p class=\"empty\">No calls stored.</p>");
    } else {
      b.append(
          "<table class=\"calls\"><thead><tr><th>#</th><th>when</th><th>model</th><th>kind</th>"
              + "<th>action</th><th>tokens before</th><th>tokens after</th><th>messages</th>"
              + "<th>summary</th></tr></thead><tbody>");
      int i = 0;
      for (CallRecord c : calls) {
        b.append("<tr class=\"call-report\" data-action=\"")
            .append(esc(c.action().wireName()))
            .append("\"><td class=\"num\">")
            .append(i++)
            .append("</td><td>")
            .append(esc(c.at().toString()))
            .append("</td><td>")
            .append(c.model() == null ? "—" : esc(c.model()))
            .append("</td><td>")
            .append(c.submitted() ? esc(c.api() == null ? "model call" : c.api()) : "stored only")
            .append("</td><td class=\"action\">")
            .append(esc(c.action().wireName().replace('_', ' ')))
            .append(reason(c))
            .append("</td><td class=\"num tokens-before\">")
            .append(c.tokensBefore() == null ? "—" : n(c.tokensBefore()))
            .append("</td><td class=\"num tokens-after\">")
            .append(c.tokensAfter() == null ? "—" : n(c.tokensAfter()))
            .append("</td><td class=\"num\">")
            .append(c.messageCountBefore())
            .append(" → ")
            .append(c.messageCountAfter())
            .append("</td><td class=\"summary-uuid\">")
            .append(c.summaryUuid() == null ? "" : "<code>" + esc(c.summaryUuid()) + "</code>")
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    b.append(
        "<p class=\"note\">Each call's compaction report (<code>_gpt_chat_details.compaction</code>)"
            + " as stored with the call; tokens are the input tokens the provider reported for"
            + " the chat's previous call and for this one.</p></section>");
    return b.toString();
  }

  /** Why nothing was compacted, when the report says. */
  private static String reason(CallRecord c) {
    if (c.compaction() == null || c.action() != CallRecord.Action.NONE) {
      return "";
    }
    String s = c.compaction().summary() == null ? null : c.compaction().summary().reason();
    String p = c.compaction().provider() == null ? null : c.compaction().provider().reason();
    String why = s != null ? s : p;
    return why == null ? "" : " <small>(" + esc(why) + ")</small>";
  }
}
