package dev.compactor.server.inspect;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.log.store.CompactionRecord;
import dev.compactor.log.store.StoredConversation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A conversation directory ({@link StoredConversation}) as the page shows it.
 *
 * <p>The context of each model call (each assistant message of the master log) is what the provider
 * reported for it when it did ({@code metadata.usage}), else what this counter counts for the view
 * that was active then: the entries of that view before the reply, which are the view's entries as
 * it became active plus the master messages appended while it was.
 */
final class DirectoryConversation {
  private DirectoryConversation() {}

  static InspectedConversation of(
      String id,
      StoredConversation c,
      String model,
      long budget,
      long window,
      TokenCounter counter) {
    List<Message> master = c.master().messages();
    int[] tokens = counter.countEach(master);
    Map<MessageId, Integer> index = new HashMap<>();
    for (int i = 0; i < master.size(); i++) {
      index.put(master.get(i).id(), i);
    }
    List<String> pairing = Pairing.of(master.stream().map(List::of).toList());
    List<InspectedConversation.MasterRow> rows = new ArrayList<>();
    for (int i = 0; i < master.size(); i++) {
      Message m = master.get(i);
      rows.add(
          new InspectedConversation.MasterRow(
              i,
              m.id().toString(),
              m.role().wireName(),
              m.uiOnly() ? 0 : tokens[i],
              m.content(),
              Pairing.calls(List.of(m)),
              pairing.get(i),
              m.uiOnly()));
    }

    View active = c.activeView();
    List<InspectedConversation.ViewRow> view = new ArrayList<>();
    for (ViewEntry e : active.entries()) {
      if (e instanceof ViewEntry.Ref r) {
        int i = index.getOrDefault(r.id(), -1);
        Message m = i < 0 ? null : master.get(i);
        view.add(
            new InspectedConversation.ViewRow(
                view.size(),
                EntryKind.VERBATIM,
                r.id().toString(),
                m == null ? "?" : m.role().wireName(),
                m == null || m.uiOnly() ? 0 : tokens[i],
                m == null ? "" : Pairing.text(List.of(m)),
                i < 0 ? List.of() : List.of(i),
                false));
      } else {
        ViewEntry.Synthesized s = (ViewEntry.Synthesized) e;
        Message m = s.message();
        view.add(
            new InspectedConversation.ViewRow(
                view.size(),
                EntryKind.ofSynthesized(m),
                m.id().toString(),
                m.role().wireName(),
                counter.countMessage(m),
                Pairing.text(List.of(m)),
                s.covers().stream().map(x -> index.getOrDefault(x, -1)).toList(),
                true));
      }
    }

    // Views in order with the master size when each became active.
    List<View> views = c.views();
    int[] activatedAt = new int[views.size()];
    List<Integer> compactions = new ArrayList<>();
    for (int v = 0; v < views.size(); v++) {
      activatedAt[v] = c.masterSizeWhenActivated(views.get(v).id());
    }
    List<InspectedConversation.Call> calls = new ArrayList<>();
    int v = 0;
    Map<String, long[]> synthesizedTokens = new HashMap<>();
    for (int i = 0; i < master.size(); i++) {
      Message m = master.get(i);
      while (v + 1 < views.size() && activatedAt[v + 1] <= i) {
        v++;
        compactions.add(calls.size());
      }
      if (m.role() != Role.ASSISTANT || m.uiOnly()) {
        continue;
      }
      if (m.metadata().usage() != null && m.metadata().usage().totalInput() > 0) {
        calls.add(new InspectedConversation.Call(i, m.metadata().usage().totalInput(), true));
        continue;
      }
      long sum = 0;
      for (ViewEntry e : views.get(v).entries()) {
        if (e instanceof ViewEntry.Ref r) {
          int at = index.getOrDefault(r.id(), Integer.MAX_VALUE);
          if (at < i && !master.get(at).uiOnly()) {
            sum += tokens[at];
          }
        } else {
          Message s = ((ViewEntry.Synthesized) e).message();
          sum +=
              synthesizedTokens
                  .computeIfAbsent(s.id().toString(), k -> new long[] {counter.countMessage(s)})[0];
        }
      }
      calls.add(new InspectedConversation.Call(i, sum, false));
    }
    while (v + 1 < views.size()) {
      v++;
      compactions.add(calls.size());
    }

    List<InspectedConversation.JournalRow> journal = new ArrayList<>();
    for (CompactionRecord r : c.journal().entries()) {
      journal.add(
          new InspectedConversation.JournalRow(
              r.timestamp().toString(),
              r.trigger(),
              r.strategy(),
              r.tokensBefore(),
              r.tokensAfter(),
              r.messagesBefore(),
              r.messagesAfter(),
              r.viewId()));
    }
    List<String> notes = new ArrayList<>();
    if (c.readOnlyProblems() != null) {
      notes.addAll(c.readOnlyProblems());
    }
    return new InspectedConversation(
        id,
        c.directory().getFileName().toString(),
        c.directory().toString(),
        model,
        budget,
        window,
        rows,
        active.id(),
        view,
        calls,
        compactions,
        journal,
        notes);
  }
}
