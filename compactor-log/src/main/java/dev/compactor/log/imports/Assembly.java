package dev.compactor.log.imports;

import dev.compactor.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** The shared last steps of building an imported conversation: repair, then usage anchors. */
final class Assembly {
  private Assembly() {}

  static ImportedConversation conversation(
      String name,
      List<Message> messages,
      Map<String, Object> metadata,
      List<String> notes,
      List<String> problems,
      Predicate<Message> anchorable) {
    List<String> found = new ArrayList<>(problems);
    List<Message> repaired = ViewRepair.repair(messages, found);
    List<Message> anchored = UsageAnchors.apply(repaired, anchorable);
    return new ImportedConversation(name, anchored, metadata, notes, found);
  }

  /** Collapses a long list of per-item notes into the first few plus a count. */
  static void addCapped(List<String> notes, List<String> items, String what) {
    if (items.isEmpty()) {
      return;
    }
    int shown = Math.min(5, items.size());
    StringBuilder sb = new StringBuilder();
    sb.append(items.size()).append(' ').append(what).append(": ");
    sb.append(String.join("; ", items.subList(0, shown)));
    if (items.size() > shown) {
      sb.append("; … ").append(items.size() - shown).append(" more");
    }
    notes.add(sb.toString());
  }
}
