package dev.compactor.chat.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Puts a chat's history and archive in the order the messages stood in the chat: the messages a
 * summary replaced right before its summary message (recursively: a summary message that was itself
 * summarized or replaced is preceded by what it replaced), and messages that left the chat without
 * a summary message to follow (replaced by {@code set}, or of a summary whose message is gone)
 * before the history, in the order they were archived. Works on ids only, so that the bodies of
 * just one page need to be read.
 */
final class ArchiveOrder {
  private ArchiveOrder() {}

  /** A row of the archive: its row id, the message id, and the summary that replaced it. */
  record Row(long rowId, String messageId, String summaryUuid) {}

  /** A position in the combined list: a history message ({@code rowId} null) or an archive row. */
  record Ref(String messageId, Long rowId) {
    boolean archived() {
      return rowId != null;
    }
  }

  /**
   * @param history the history's message ids, in order
   * @param archive the archive rows, in the order they were archived
   * @param summaryMessages each summary's uuid to the id of the summary message it made
   */
  static List<Ref> order(
      List<String> history, List<Row> archive, Map<String, String> summaryMessages) {
    Map<String, List<Row>> bySummary = new LinkedHashMap<>();
    for (Row r : archive) {
      if (r.summaryUuid() != null) {
        bySummary.computeIfAbsent(r.summaryUuid(), u -> new ArrayList<>()).add(r);
      }
    }
    // Which summary a message id stands for, for the summaries whose rows are archived.
    Map<String, String> summaryOfMessage = new HashMap<>();
    for (String uuid : bySummary.keySet()) {
      String messageId = summaryMessages.get(uuid);
      if (messageId != null) {
        summaryOfMessage.putIfAbsent(messageId, uuid);
      }
    }
    Set<String> present = new HashSet<>(history);
    for (Row r : archive) {
      present.add(r.messageId());
    }
    State st = new State(bySummary, summaryOfMessage);
    // Roots before the history: rows that no message in the chat will pull in.
    for (Row r : archive) {
      String uuid = r.summaryUuid();
      boolean pulledIn =
          uuid != null
              && summaryMessages.get(uuid) != null
              && present.contains(summaryMessages.get(uuid));
      if (!pulledIn) {
        st.visit(new Ref(r.messageId(), r.rowId()));
      }
    }
    for (String id : history) {
      st.visit(new Ref(id, null));
    }
    // Anything left (a cycle of summaries pulling in each other cannot be placed): in archive
    // order.
    for (Row r : archive) {
      if (!st.placed.contains(r.rowId())) {
        st.visit(new Ref(r.messageId(), r.rowId()));
      }
    }
    return st.out;
  }

  private static final class State {
    final Map<String, List<Row>> bySummary;
    final Map<String, String> summaryOfMessage;
    final Set<String> expanded = new HashSet<>();
    final Set<Long> placed = new HashSet<>();
    final List<Ref> out = new ArrayList<>();

    State(Map<String, List<Row>> bySummary, Map<String, String> summaryOfMessage) {
      this.bySummary = bySummary;
      this.summaryOfMessage = summaryOfMessage;
    }

    void visit(Ref ref) {
      if (ref.archived() && !placed.add(ref.rowId())) {
        return;
      }
      String uuid = summaryOfMessage.get(ref.messageId());
      if (uuid != null && expanded.add(uuid)) {
        for (Row r : bySummary.get(uuid)) {
          visit(new Ref(r.messageId(), r.rowId()));
        }
      }
      out.add(ref);
    }
  }
}
