package dev.compactor.server.inspect;

import static dev.compactor.server.inspect.Html.esc;
import static dev.compactor.server.inspect.Html.n;
import static dev.compactor.server.inspect.Html.seg;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.json.ChatTaskJson;
import dev.compactor.chat.settings.StickySettings;
import dev.compactor.chat.store.CallRecord;
import dev.compactor.chat.store.ChatOverview;
import dev.compactor.chat.store.ChatRecord;
import dev.compactor.chat.store.MessageEntry;
import dev.compactor.chat.store.MessagePage;
import dev.compactor.chat.store.SummaryRecord;
import dev.compactor.core.message.Message;
import java.util.List;
import java.util.Map;

/** The inspector's pages as HTML. Every stored value is escaped ({@link Html#esc}). */
final class Pages {
  static final String BASE = "/inspect";

  /** Text longer than this is folded: its start shown, the rest in a {@code <details>}. */
  private static final int FOLD = 600;

  private Pages() {}

  static String page(String title, String body, boolean loggedIn) {
    return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>"
        + esc(title)
        + " — compactor inspector</title>"
        + "<link rel=\"stylesheet\" href=\""
        + BASE
        + "/static/inspector.css\">"
        + "<script src=\""
        + BASE
        + "/static/inspector.js\" defer></script></head><body>"
        + "<header><a class=\"home\" href=\""
        + BASE
        + "\">compactor inspector</a>"
        + (loggedIn
            ? "<form class=\"logout\" method=\"post\" action=\""
                + BASE
                + "/logout\"><button type=\"submit\">forget key</button></form>"
            : "")
        + "</header><main>"
        + body
        + "</main></body></html>";
  }

  static String login(String problem) {
    return page(
        "API key",
        "<h1>API key</h1><p>This server serves tenants by API key. Enter yours: it is kept in an"
            + " HttpOnly cookie for this page only, never in an address.</p>"
            + (problem == null
                ? ""
                : "<p class=\"error\" id=\"login-error\">" + esc(problem) + "</p>")
            + "<form id=\"login\" method=\"post\" action=\""
            + BASE
            + "/login\"><label>API key <input id=\"key\" name=\"key\" type=\"password\""
            + " autocomplete=\"off\" required></label> <button type=\"submit\">open</button></form>",
        false);
  }

  static String error(int status, String message, boolean loggedIn) {
    return page(
        "error " + status,
        "<h1>" + status + "</h1><p class=\"error\">" + esc(message) + "</p>",
        loggedIn);
  }

  // ------------------------------------------------------------------ list

  static String list(
      String tenant,
      List<InspectorSource.ConversationItem> conversations,
      List<ChatOverview> chats,
      boolean hasChats,
      boolean loggedIn) {
    StringBuilder b = new StringBuilder();
    b.append("<h1>Tenant ").append(esc(tenant)).append("</h1>");
    b.append("<h2>Conversations</h2>");
    if (conversations.isEmpty()) {
      b.append("<p class=\"empty\">No conversations.</p>");
    } else {
      b.append(
          "<table id=\"conversations\"><thead><tr><th>conversation</th><th>kind</th>"
              + "<th>messages</th><th>tokens</th><th>model</th><th>last activity</th>"
              + "<th>compactions</th></tr></thead><tbody>");
      for (InspectorSource.ConversationItem c : conversations) {
        b.append("<tr class=\"conversation\"><td><a href=\"")
            .append(BASE)
            .append("/conversations/")
            .append(esc(seg(c.id())))
            .append("\">")
            .append(esc(c.title()))
            .append("</a></td><td>")
            .append(esc(c.kind()))
            .append("</td><td class=\"num\">")
            .append(n(c.messages()))
            .append("</td><td class=\"num\">")
            .append(c.tokens() < 0 ? "—" : n(c.tokens()))
            .append("</td><td>")
            .append(c.model() == null ? "—" : esc(c.model()))
            .append("</td><td>")
            .append(c.lastActivity() == null ? "—" : esc(c.lastActivity()))
            .append("</td><td class=\"num\">")
            .append(c.compactions())
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    if (hasChats) {
      b.append("<h2>Chats</h2>");
      if (chats.isEmpty()) {
        b.append("<p class=\"empty\">No chats.</p>");
      } else {
        b.append(
            "<table id=\"chats\"><thead><tr><th>chat</th><th>messages</th><th>archived</th>"
                + "<th>context tokens</th><th>model</th><th>last activity</th>"
                + "<th>summaries</th></tr></thead><tbody>");
        for (ChatOverview c : chats) {
          ChatRecord r = c.record();
          b.append("<tr class=\"chat\"><td><a href=\"")
              .append(BASE)
              .append("/chats/")
              .append(esc(seg(r.key().chatId())))
              .append("\">")
              .append(esc(r.key().chatId()))
              .append("</a></td><td class=\"num\">")
              .append(n(c.messageCount()))
              .append("</td><td class=\"num\">")
              .append(n(c.archivedCount()))
              .append("</td><td class=\"num\">")
              .append(r.lastContextTokens() == null ? "—" : n(r.lastContextTokens()))
              .append("</td><td>")
              .append(r.model() == null ? "—" : esc(r.model()))
              .append("</td><td>")
              .append(esc(r.updatedAt().toString()))
              .append("</td><td class=\"num\">")
              .append(c.summaryCount())
              .append("</td></tr>");
        }
        b.append("</tbody></table>");
      }
    }
    return page("tenant " + tenant, b.toString(), loggedIn);
  }

  // ------------------------------------------------------------------ conversation

  static String conversation(InspectedConversation c, boolean loggedIn) {
    StringBuilder b = new StringBuilder();
    b.append("<h1>").append(esc(c.title())).append("</h1>");
    b.append("<p class=\"meta\">")
        .append(esc(c.source()))
        .append(" · model ")
        .append(c.model() == null ? "unknown" : esc(c.model()))
        .append(c.budget() > 0 ? " · budget " + n(c.budget()) : "")
        .append(c.window() > 0 ? " · window " + n(c.window()) : "")
        .append(" · ")
        .append(n(c.master().size()))
        .append(" master messages · active view ")
        .append(esc(c.viewId()))
        .append(" with ")
        .append(n(c.view().size()))
        .append(" entries</p>");
    for (String note : c.notes()) {
      b.append("<p class=\"note\">").append(esc(note)).append("</p>");
    }
    b.append(
        "<nav><a href=\"#chart\">context per call</a> · <a href=\"#view\">active view</a> ·"
            + " <a href=\"#journal\">journal</a> · <a href=\"#master\">master log</a></nav>");

    b.append("<section id=\"chart\"><h2>Context size per model call</h2>");
    b.append(ContextChart.svg(c));
    b.append(
        "<p class=\"legend\"><span class=\"key reported\"></span> reported by the provider"
            + " <span class=\"key counted\"></span> counted here <span class=\"key budget\"></span>"
            + " budget <span class=\"key window\"></span> window <span class=\"key"
            + " compaction\"></span> compaction</p></section>");

    b.append("<section id=\"view\"><h2>Active view</h2><p id=\"kind-counts\">");
    for (Map.Entry<EntryKind, Integer> e : c.kindCounts().entrySet()) {
      b.append("<span class=\"count kind-")
          .append(e.getKey().label())
          .append("\" data-kind=\"")
          .append(e.getKey().label())
          .append("\">")
          .append(e.getKey().label())
          .append(" <b>")
          .append(e.getValue())
          .append("</b></span> ");
    }
    b.append(
        "</p><table class=\"entries\"><thead><tr><th>#</th><th>kind</th><th>role</th>"
            + "<th>tokens</th><th>covers</th><th>content</th></tr></thead><tbody>");
    for (InspectedConversation.ViewRow r : c.view()) {
      b.append("<tr class=\"entry kind-")
          .append(r.kind().label())
          .append("\" data-kind=\"")
          .append(r.kind().label())
          .append("\" data-id=\"")
          .append(esc(r.messageId()))
          .append("\"><td class=\"num\">")
          .append(r.index())
          .append("</td><td><span class=\"badge kind-")
          .append(r.kind().label())
          .append("\">")
          .append(r.kind().label())
          .append("</span></td><td>")
          .append(esc(r.role()))
          .append("</td><td class=\"num\">")
          .append(n(r.tokens()))
          .append("</td><td>")
          .append(covers(r.covers()))
          .append("</td><td>");
      if (r.recoverable()) {
        String href = BASE + "/conversations/" + seg(c.id()) + "/recover/" + seg(r.messageId());
        b.append("<a class=\"recover\" href=\"")
            .append(esc(href))
            .append("\" data-fragment=\"")
            .append(esc(href + "?fragment=1"))
            .append("\">show the original")
            .append(r.covers().size() == 1 ? "" : "s (" + r.covers().size() + ")")
            .append("</a><div class=\"recovered\" hidden></div>");
      }
      b.append(text(r.text())).append("</td></tr>");
    }
    b.append("</tbody></table></section>");

    b.append("<section id=\"journal\"><h2>Compaction journal</h2>");
    if (c.journal().isEmpty()) {
      b.append("<p class=\"empty\">No compactions recorded.</p>");
    } else {
      b.append(
          "<table class=\"journal\"><thead><tr><th>when</th><th>trigger</th>"
              + "<th>strategy</th><th>tokens before</th><th>tokens after</th><th>messages</th>"
              + "<th>view</th></tr></thead><tbody>");
      for (InspectedConversation.JournalRow j : c.journal()) {
        b.append("<tr class=\"compaction\"><td>")
            .append(esc(j.when()))
            .append("</td><td>")
            .append(esc(j.trigger()))
            .append("</td><td>")
            .append(esc(j.strategy()))
            .append("</td><td class=\"num tokens-before\">")
            .append(j.tokensBefore() < 0 ? "—" : n(j.tokensBefore()))
            .append("</td><td class=\"num tokens-after\">")
            .append(j.tokensAfter() < 0 ? "—" : n(j.tokensAfter()))
            .append("</td><td class=\"num\">")
            .append(j.messagesBefore() < 0 ? "—" : j.messagesBefore() + " → " + j.messagesAfter())
            .append("</td><td>")
            .append(j.view() == null ? "—" : esc(j.view()))
            .append("</td></tr>");
      }
      b.append("</tbody></table>");
    }
    b.append("</section>");

    b.append(
        "<section id=\"master\"><h2>Master log</h2><table class=\"master\"><thead><tr>"
            + "<th>#</th><th>role</th><th>tokens</th><th>tools</th><th>content</th></tr></thead>"
            + "<tbody>");
    for (InspectedConversation.MasterRow m : c.master()) {
      b.append("<tr class=\"message role-")
          .append(esc(m.role().replaceAll("[^a-z]", "")))
          .append(m.uiOnly() ? " ui-only" : "")
          .append("\" id=\"m")
          .append(m.index())
          .append("\"><td class=\"num\">")
          .append(m.index())
          .append("</td><td>")
          .append(esc(m.role()))
          .append(m.uiOnly() ? " <small>(UI only)</small>" : "")
          .append("</td><td class=\"num\">")
          .append(n(m.tokens()))
          .append("</td><td>");
      for (String call : m.toolCalls()) {
        b.append("<code class=\"call\">").append(esc(fold(call, 200))).append("</code><br>");
      }
      if (m.pairing() != null) {
        b.append("<small class=\"pairing\">").append(esc(m.pairing())).append("</small>");
      }
      b.append("</td><td>").append(text(m.text())).append("</td></tr>");
    }
    b.append("</tbody></table></section>");
    return page(c.title(), b.toString(), loggedIn);
  }

  static String originals(List<InspectorSource.Original> originals) {
    StringBuilder b = new StringBuilder("<div class=\"originals\">");
    for (InspectorSource.Original o : originals) {
      b.append("<div class=\"original\" data-id=\"")
          .append(esc(o.id()))
          .append("\"><p class=\"meta\">#")
          .append(o.index())
          .append(" · ")
          .append(esc(o.role()))
          .append(" · ")
          .append(esc(o.id()))
          .append("</p><pre class=\"original-text\">")
          .append(esc(o.text()))
          .append("</pre></div>");
    }
    return b.append("</div>").toString();
  }

  static String recoverPage(
      String conversationId, String entryId, List<InspectorSource.Original> originals, boolean in) {
    return page(
        "originals of " + entryId,
        "<h1>Originals of "
            + esc(entryId)
            + "</h1><p><a href=\""
            + esc(BASE + "/conversations/" + seg(conversationId))
            + "#view\">back to the conversation</a></p>"
            + originals(originals),
        in);
  }

  // ------------------------------------------------------------------ chat

  static String chat(
      ChatOverview c,
      MessagePage messages,
      List<SummaryRecord> summaries,
      List<CallRecord> calls,
      boolean archived,
      boolean loggedIn) {
    ChatRecord r = c.record();
    ChatKey key = r.key();
    StringBuilder b = new StringBuilder();
    b.append("<h1>Chat ").append(esc(key.chatId())).append("</h1>");
    b.append("<p class=\"meta\">model ")
        .append(r.model() == null ? "—" : esc(r.model()))
        .append(" · ")
        .append(r.interactions())
        .append(" interactions · last context ")
        .append(r.lastContextTokens() == null ? "—" : n(r.lastContextTokens()))
        .append(" tokens · updated ")
        .append(esc(r.updatedAt().toString()))
        .append("</p>");
    StickySettings settings = StickySettings.fromJson(r.settings());
    b.append(
            "<section id=\"settings\"><h2>Settings</h2><div class=\"two\"><div><h3>given</h3>"
                + "<pre id=\"settings-given\">")
        .append(esc(pretty(settings.toNode())))
        .append("</pre></div><div><h3>effective</h3><pre id=\"settings-effective\">")
        .append(esc(pretty(StickySettings.effectiveJson(settings.effective()))))
        .append("</pre></div></div></section>");

    b.append("<section id=\"messages\"><h2>Messages</h2><p>")
        .append(n(c.messageCount()))
        .append(" in the history, ")
        .append(n(c.archivedCount()))
        .append(" archived · ")
        .append(
            archived
                ? "<a href=\"" + esc(BASE + "/chats/" + seg(key.chatId())) + "\">hide archived</a>"
                : "<a id=\"show-archived\" href=\""
                    + esc(BASE + "/chats/" + seg(key.chatId()) + "?archived=1")
                    + "\">show archived</a>")
        .append(
            "</p><table class=\"master\"><thead><tr><th>#</th><th>role</th><th>state</th>"
                + "<th>content</th></tr></thead><tbody>");
    int i = messages.offset();
    for (MessageEntry e : messages.messages()) {
      Message m = e.message();
      b.append("<tr class=\"message")
          .append(e.archived() ? " archived" : "")
          .append("\" data-id=\"")
          .append(esc(m.id().toString()))
          .append("\"><td class=\"num\">")
          .append(i++)
          .append("</td><td>")
          .append(esc(m.role().wireName()))
          .append("</td><td>");
      if (e.archived()) {
        b.append("archived (")
            .append(esc(e.archive().reason().wireName()))
            .append(
                e.archive().summaryUuid() == null
                    ? ""
                    : ", summary " + esc(e.archive().summaryUuid()))
            .append(")");
      } else if (m.metadata().extra().containsKey("gpt_summary_uuid")) {
        b.append("summary");
      }
      b.append("</td><td>");
      for (String call : Pairing.calls(List.of(m))) {
        b.append("<code class=\"call\">").append(esc(fold(call, 200))).append("</code><br>");
      }
      b.append(text(m.content())).append("</td></tr>");
    }
    b.append("</tbody></table>");
    if (messages.hasNext()) {
      b.append("<p class=\"note\">Showing ")
          .append(messages.messages().size())
          .append(" of ")
          .append(messages.total())
          .append(" messages.</p>");
    }
    b.append("</section>");

    b.append("<section id=\"summaries\"><h2>Summary records</h2>");
    if (summaries.isEmpty()) {
      b.append("<p class=\"empty\">No summaries.</p>");
    }
    for (SummaryRecord s : summaries) {
      b.append("<div class=\"summary\" data-uuid=\"")
          .append(esc(s.uuid()))
          .append("\"><p class=\"meta\">")
          .append(esc(s.createdAt().toString()))
          .append(" · ")
          .append(esc(s.trigger().wireName()))
          .append(" · model ")
          .append(esc(s.model()))
          .append(" · messages ")
          .append(s.messageCountBefore())
          .append(" → ")
          .append(s.messageCountAfter())
          .append(s.costUsd() == null ? "" : " · $" + esc(s.costUsd().toPlainString()))
          .append("</p>")
          .append(text(s.summaryText()))
          .append("<details><summary>covers ")
          .append(s.coveredMessageIds().size())
          .append(" messages</summary><ul>");
      for (String id : s.coveredMessageIds()) {
        b.append("<li><code>").append(esc(id)).append("</code></li>");
      }
      b.append("</ul></details></div>");
    }
    b.append("</section>");
    b.append(ChatCalls.section(calls));
    return page("chat " + key.chatId(), b.toString(), loggedIn);
  }

  // ------------------------------------------------------------------ pieces

  private static String covers(List<Integer> covers) {
    if (covers.isEmpty()) {
      return "—";
    }
    boolean contiguous = true;
    for (int i = 1; i < covers.size(); i++) {
      contiguous &= covers.get(i) == covers.get(i - 1) + 1;
    }
    if (covers.size() == 1) {
      return "<a href=\"#m" + covers.get(0) + "\">#" + covers.get(0) + "</a>";
    }
    int first = covers.get(0);
    int last = covers.get(covers.size() - 1);
    return contiguous
        ? "<a href=\"#m"
            + first
            + "\">#"
            + first
            + "</a>–<a href=\"#m"
            + last
            + "\">#"
            + last
            + "</a> ("
            + covers.size()
            + ")"
        : covers.size() + " messages from <a href=\"#m" + first + "\">#" + first + "</a>";
  }

  private static String text(String s) {
    if (s == null || s.isEmpty()) {
      return "<span class=\"empty\">(empty)</span>";
    }
    if (s.length() <= FOLD) {
      return "<pre class=\"text\">" + esc(s) + "</pre>";
    }
    return "<details class=\"fold\"><summary><pre class=\"text\">"
        + esc(s.substring(0, FOLD))
        + "…</pre><small>"
        + n(s.length())
        + " characters: show all</small></summary><pre class=\"text\">"
        + esc(s)
        + "</pre></details>";
  }

  private static String fold(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }

  private static String pretty(JsonNode n) {
    try {
      return ChatTaskJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(n);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      return String.valueOf(n);
    }
  }
}
