package dev.compactor.server.inspect;

import java.util.List;

/**
 * Everything the conversation page shows, read from a conversation directory or from the proxy's
 * store: the master log, the active view, the context size per model call and the compaction
 * journal.
 *
 * @param id the id in the page's address
 * @param title what the page is headed with
 * @param source where it is stored (a directory, the proxy's database)
 * @param model the model, or null when unknown
 * @param budget the context budget in tokens, or 0 when unknown
 * @param window the context window in tokens, or 0 when unknown
 * @param master every master message in order
 * @param viewId the active view's id
 * @param view the active view's entries in order
 * @param calls the context size of each model call, in order
 * @param compactions where a compaction happened: the number of calls before it, per compaction
 * @param journal the compaction journal, oldest first
 * @param notes what the page should say about what it could not read or know
 */
public record InspectedConversation(
    String id,
    String title,
    String source,
    String model,
    long budget,
    long window,
    List<MasterRow> master,
    String viewId,
    List<ViewRow> view,
    List<Call> calls,
    List<Integer> compactions,
    List<JournalRow> journal,
    List<String> notes) {
  public InspectedConversation {
    master = List.copyOf(master);
    view = List.copyOf(view);
    calls = List.copyOf(calls);
    compactions = List.copyOf(compactions);
    journal = List.copyOf(journal);
    notes = List.copyOf(notes);
  }

  /**
   * One master message.
   *
   * @param index its position in the master log (0-based)
   * @param id its id
   * @param role its role
   * @param tokens its tokens
   * @param text its content
   * @param toolCalls the calls it makes, each "name(arguments)"
   * @param pairing how it pairs with tool calls or results ("result at #5", "call c1 at #3", "no
   *     result"), or null
   * @param uiOnly shown to people, never sent
   */
  public record MasterRow(
      int index,
      String id,
      String role,
      long tokens,
      String text,
      List<String> toolCalls,
      String pairing,
      boolean uiOnly) {
    public MasterRow {
      toolCalls = List.copyOf(toolCalls);
    }
  }

  /**
   * One entry of the active view.
   *
   * @param index its position in the view
   * @param kind verbatim or what a compaction made of it
   * @param messageId the id of the message sent
   * @param role its role
   * @param tokens its tokens
   * @param text what is sent
   * @param covers the master indexes it stands for (one for a verbatim entry)
   * @param recoverable whether {@code recover} can show the originals (every synthesized entry)
   */
  public record ViewRow(
      int index,
      EntryKind kind,
      String messageId,
      String role,
      long tokens,
      String text,
      List<Integer> covers,
      boolean recoverable) {
    public ViewRow {
      covers = List.copyOf(covers);
    }
  }

  /**
   * One model call.
   *
   * @param masterIndex the master index of the reply it produced
   * @param tokens the context sent
   * @param reported whether the provider reported it (else it is counted here)
   */
  public record Call(int masterIndex, long tokens, boolean reported) {}

  /**
   * One compaction journal entry.
   *
   * @param when its timestamp (ISO-8601)
   * @param trigger what started it
   * @param strategy what ran
   * @param tokensBefore tokens of the view before, or -1 when unknown
   * @param tokensAfter tokens of the view after, or -1 when unknown
   * @param messagesBefore messages before, or -1 when unknown (the proxy does not record them)
   * @param messagesAfter messages after, or -1 when unknown
   * @param view the view it made, or null
   */
  public record JournalRow(
      String when,
      String trigger,
      String strategy,
      long tokensBefore,
      long tokensAfter,
      int messagesBefore,
      int messagesAfter,
      String view) {}

  /** How many view entries are of each kind. */
  public java.util.Map<EntryKind, Integer> kindCounts() {
    java.util.Map<EntryKind, Integer> out = new java.util.EnumMap<>(EntryKind.class);
    for (EntryKind k : EntryKind.values()) {
      out.put(k, 0);
    }
    for (ViewRow r : view) {
      out.merge(r.kind(), 1, Integer::sum);
    }
    return out;
  }
}
