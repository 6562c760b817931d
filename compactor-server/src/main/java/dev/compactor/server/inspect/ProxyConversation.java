package dev.compactor.server.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.server.proxy.ProxyInspection;
import dev.compactor.server.proxy.ProxyStore;
import dev.compactor.wire.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A proxy conversation as the page shows it.
 *
 * <p>The proxy stores its compacted view in the wire format, where the marks a compaction leaves
 * ({@code metadata.extra}) do not survive; so each view item is aligned to the client items it
 * stands for: an item equal (as JSON) to the next client item is that item verbatim; the items
 * between two verbatim ones stand for the client items between them (one for one when the counts
 * agree, all of them otherwise); the kind of a synthesized item is read from its text.
 *
 * <p>The proxy stores one row per request ({@link ProxyStore#requests}): the chart shows the tokens
 * it sent on each call, each compaction marked before the call it was made for, and the journal
 * lists the compactions. Replies logged before the proxy stored these rows (an older conversation)
 * are shown with the conversation's uncompacted size at that call, and the page says so.
 */
final class ProxyConversation {
  private ProxyConversation() {}

  static InspectedConversation of(
      ProxyStore.Conversation c,
      List<ProxyStore.LogEntry> log,
      List<ProxyStore.RequestRecord> requests,
      TokenCounter counter,
      String model) {
    List<List<Message>> decoded = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<Integer> clientRows = new ArrayList<>(); // master index of each client item
    List<JsonNode> clientItems = new ArrayList<>();
    for (int i = 0; i < log.size(); i++) {
      ProxyStore.LogEntry e = log.get(i);
      ProxyInspection.Decoded d = ProxyInspection.item(c.api(), e.body());
      decoded.add(d.messages());
      if (d.problem() != null) {
        problems.add("log line " + i + " could not be decoded (" + d.problem() + "): shown raw");
      }
      if (e.kind().equals("client")) {
        clientRows.add(i);
        clientItems.add(Json.tryParse(e.body()));
      }
    }
    List<String> pairing = Pairing.of(decoded);
    List<InspectedConversation.MasterRow> rows = new ArrayList<>();
    long[] tokens = new long[log.size()];
    List<InspectedConversation.Call> calls = new ArrayList<>();
    long running = 0;
    for (int i = 0; i < log.size(); i++) {
      ProxyStore.LogEntry e = log.get(i);
      List<Message> ms = decoded.get(i);
      tokens[i] = ms.isEmpty() ? counter.countText(e.body()) : counter.countMessages(ms);
      String role = ms.isEmpty() ? roleOf(e.body()) : ms.get(0).role().wireName();
      String text =
          ms.isEmpty()
              ? e.body()
              : ms.stream().map(Message::content).collect(Collectors.joining("\n"));
      rows.add(
          new InspectedConversation.MasterRow(
              i,
              e.kind() + "-" + i,
              role + (e.kind().equals("reply") ? " (reply)" : ""),
              tokens[i],
              text,
              Pairing.calls(ms),
              pairing.get(i),
              false));
      if (e.kind().equals("reply")) {
        calls.add(new InspectedConversation.Call(i, running, false));
      } else {
        running += tokens[i];
      }
    }

    List<InspectedConversation.ViewRow> view = new ArrayList<>();
    List<String> notes = new ArrayList<>(problems);
    JsonNode viewItems = c.viewItems() == null ? null : Json.tryParse(c.viewItems());
    if (viewItems != null && viewItems.isArray()) {
      List<JsonNode> items = new ArrayList<>();
      viewItems.forEach(items::add);
      int covered = Math.min(c.viewCovered(), clientItems.size());
      List<List<Integer>> covers = align(items, clientItems.subList(0, covered));
      for (int k = 0; k < items.size(); k++) {
        JsonNode item = items.get(k);
        ProxyInspection.Decoded d = ProxyInspection.item(c.api(), Json.write(item));
        List<Message> ms = d.messages();
        List<Integer> masterCovers = covers.get(k).stream().map(clientRows::get).toList();
        boolean verbatim =
            covers.get(k).size() == 1 && item.equals(clientItems.get(covers.get(k).get(0)));
        EntryKind kind =
            verbatim
                ? EntryKind.VERBATIM
                : ms.isEmpty() ? EntryKind.SYNTHESIZED : EntryKind.ofSynthesized(ms.get(0));
        view.add(
            new InspectedConversation.ViewRow(
                view.size(),
                kind,
                "view-" + k,
                ms.isEmpty() ? roleOf(Json.write(item)) : ms.get(0).role().wireName(),
                ms.isEmpty() ? counter.countText(Json.write(item)) : counter.countMessages(ms),
                ms.isEmpty() ? Json.write(item) : Pairing.text(ms),
                masterCovers,
                !verbatim && !masterCovers.isEmpty()));
      }
      for (int j = covered; j < clientItems.size(); j++) {
        addVerbatim(view, rows.get(clientRows.get(j)), clientRows.get(j));
      }
    } else {
      for (int j = 0; j < clientItems.size(); j++) {
        addVerbatim(view, rows.get(clientRows.get(j)), clientRows.get(j));
      }
    }
    // Each request row names the log line of its reply; a reply without a row predates them.
    java.util.Map<Integer, ProxyStore.Request> byReply = new java.util.HashMap<>();
    List<Integer> compactionMarks = new ArrayList<>();
    List<InspectedConversation.JournalRow> journal = new ArrayList<>();
    for (ProxyStore.RequestRecord rec : requests) {
      ProxyStore.Request q = rec.request();
      if (rec.replySeq() != null) {
        byReply.put(rec.replySeq(), q);
      }
      if (q.strategy() != null) {
        // marked before the call it was made for: the first call whose reply is at or after it
        int at = 0;
        int replyAt = rec.replySeq() != null ? rec.replySeq() : Integer.MAX_VALUE;
        while (at < calls.size() && calls.get(at).masterIndex() < replyAt) {
          at++;
        }
        if (rec.replySeq() == null) {
          at = calls.size(); // a request whose reply was not stored: after every stored call
        }
        compactionMarks.add(at);
        journal.add(
            new InspectedConversation.JournalRow(
                rec.at().toString(),
                q.trigger() == null ? "—" : q.trigger(),
                q.strategy(),
                q.tokensBefore() == null ? -1 : q.tokensBefore(),
                q.tokensAfter() == null ? -1 : q.tokensAfter(),
                -1,
                -1,
                null));
      }
    }
    List<InspectedConversation.Call> sent = new ArrayList<>();
    int estimated = 0;
    for (InspectedConversation.Call call : calls) {
      ProxyStore.Request q = byReply.get(call.masterIndex());
      Long t = q == null ? null : q.tokensAfter() != null ? q.tokensAfter() : q.tokensBefore();
      if (t == null) {
        estimated++;
        sent.add(call);
      } else {
        sent.add(new InspectedConversation.Call(call.masterIndex(), t, false));
      }
    }
    if (estimated > 0) {
      notes.add(
          estimated
              + " call(s) have no per-request record (made before the proxy stored them): their"
              + " bars show the conversation's uncompacted size at that call, and compactions"
              + " made then are not in the journal.");
    }
    notes.add(
        "The chart shows the tokens the proxy sent on each call (as in its x-compactor-tokens-after"
            + " header); "
            + c.compactions()
            + " compaction(s) so far, the current view standing for the first "
            + c.viewCovered()
            + " client items.");
    return new InspectedConversation(
        c.id(),
        c.externalKey() == null ? c.id() : c.externalKey() + " (" + c.id() + ")",
        "proxy, " + c.api(),
        model,
        0,
        0,
        rows,
        c.viewItems() == null ? "none (nothing compacted yet)" : "stored view",
        view,
        sent,
        compactionMarks,
        journal,
        notes);
  }

  private static void addVerbatim(
      List<InspectedConversation.ViewRow> view, InspectedConversation.MasterRow r, int index) {
    view.add(
        new InspectedConversation.ViewRow(
            view.size(),
            EntryKind.VERBATIM,
            r.id(),
            r.role(),
            r.tokens(),
            r.text(),
            List.of(index),
            false));
  }

  /** For each view item, the client indexes it stands for (see the class comment). */
  static List<List<Integer>> align(List<JsonNode> view, List<JsonNode> client) {
    List<List<Integer>> out = new ArrayList<>();
    int j = 0;
    int k = 0;
    while (k < view.size()) {
      if (j < client.size() && view.get(k).equals(client.get(j))) {
        out.add(List.of(j));
        j++;
        k++;
        continue;
      }
      // a run of synthesized items up to the next one that equals a later client item
      int runEnd = k;
      int nextMatch = client.size();
      search:
      for (; runEnd < view.size(); runEnd++) {
        for (int m = j; m < client.size(); m++) {
          if (view.get(runEnd).equals(client.get(m))) {
            nextMatch = m;
            break search;
          }
        }
      }
      int run = runEnd - k;
      int span = nextMatch - j;
      for (int x = 0; x < run; x++) {
        if (run == span) {
          out.add(List.of(j + x));
        } else {
          List<Integer> all = new ArrayList<>();
          for (int m = j; m < nextMatch; m++) {
            all.add(m);
          }
          out.add(all);
        }
      }
      j = nextMatch;
      k = runEnd;
    }
    return out;
  }

  private static String roleOf(String json) {
    JsonNode n = Json.tryParse(json);
    if (n != null && n.hasNonNull("role")) {
      return n.get("role").asText();
    }
    return n != null && n.has("system") ? "system" : "?";
  }
}
