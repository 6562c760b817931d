package dev.compactor.core.compaction.summary;

import dev.compactor.core.compaction.text.Identifiers;
import dev.compactor.core.compaction.text.TextFeatures.IdentifierKind;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Mechanical check of a checkpoint against the span it replaces: every identifier (file path, error
 * name, call id, issue number, quoted string, number of 4+ digits) that occurs in the covered
 * messages and that the kept messages refer to must appear in the checkpoint text. Missing ones are
 * added to its {@code Identifiers} section (most important kinds first, at most {@link
 * #MAX_ADDED}).
 */
final class CheckpointVerifier {
  private CheckpointVerifier() {}

  static final int MAX_ADDED = 40;

  /**
   * The verified checkpoint.
   *
   * @param checkpoint the checkpoint with missing identifiers added
   * @param added the identifiers added
   * @param omitted missing identifiers left out because of {@link #MAX_ADDED}
   */
  record Verified(Checkpoint checkpoint, List<String> added, int omitted) {}

  /**
   * The form in which identifiers are compared: a path of a unified diff's header or {@code diff
   * --git} line ({@code a/src/x.py}, {@code b/src/x.py}) is the path itself ({@code src/x.py}), so
   * a checkpoint naming {@code src/x.py} is not given the two prefixed forms again.
   */
  static String comparable(String id) {
    if (id.length() > 2
        && (id.charAt(0) == 'a' || id.charAt(0) == 'b')
        && id.charAt(1) == '/'
        && id.charAt(2) != '/') {
      return id.substring(2);
    }
    return id;
  }

  static Verified verify(Checkpoint cp, List<Message> covered, List<Message> kept) {
    Map<String, IdentifierKind> keptIds = new LinkedHashMap<>();
    for (Message m : kept) {
      if (m.uiOnly()) {
        continue;
      }
      Map<String, IdentifierKind> found = new LinkedHashMap<>();
      Identifiers.typed(m.content(), true, found);
      for (ToolCall c : m.toolCalls()) {
        Identifiers.typed(c.arguments(), false, found);
      }
      found.forEach(
          (id, kind) ->
              keptIds.merge(comparable(id), kind, (a, b) -> a.ordinal() <= b.ordinal() ? a : b));
    }
    if (keptIds.isEmpty()) {
      return new Verified(cp, List.of(), 0);
    }
    Set<String> shared = new HashSet<>();
    BiConsumer<String, IdentifierKind> shareKept =
        (id, kind) -> {
          String key = comparable(id);
          if (keptIds.containsKey(key)) {
            shared.add(key);
          }
        };
    for (Message m : covered) {
      if (m.uiOnly()) {
        continue;
      }
      Identifiers.forEachTyped(m.content(), true, shareKept);
      for (ToolCall c : m.toolCalls()) {
        Identifiers.forEachTyped(c.arguments(), false, shareKept);
      }
    }
    if (shared.isEmpty()) {
      return new Verified(cp, List.of(), 0);
    }
    String rendered = cp.render();
    List<Map.Entry<String, IdentifierKind>> missing = new ArrayList<>();
    for (Map.Entry<String, IdentifierKind> e : keptIds.entrySet()) {
      if (shared.contains(e.getKey()) && !rendered.contains(e.getKey())) {
        missing.add(e);
      }
    }
    if (missing.isEmpty()) {
      return new Verified(cp, List.of(), 0);
    }
    // stable: by kind, then first appearance in the kept messages
    missing.sort(Comparator.comparingInt(e -> e.getValue().ordinal()));
    List<String> added = new ArrayList<>();
    for (int i = 0; i < Math.min(MAX_ADDED, missing.size()); i++) {
      added.add(missing.get(i).getKey());
    }
    List<String> ids = new ArrayList<>(cp.identifiers());
    ids.addAll(added);
    return new Verified(cp.withIdentifiers(ids), added, missing.size() - added.size());
  }
}
