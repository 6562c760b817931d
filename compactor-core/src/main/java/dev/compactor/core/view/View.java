package dev.compactor.core.view;

import dev.compactor.core.message.MessageId;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A view of a conversation: the list of entries that is sent to the model. The first view ({@value
 * #MASTER_ID}) references every master message; each compaction creates a new view.
 *
 * @param id view id, e.g. {@code master} or {@code compacted-001}
 * @param entries in order
 */
public record View(String id, List<ViewEntry> entries) {
  public static final String MASTER_ID = "master";

  public View {
    Objects.requireNonNull(id, "view id");
    if (!id.matches("[A-Za-z0-9._-]{1,64}")) {
      throw new IllegalArgumentException(
          "view id \"" + id + "\" must be 1-64 letters, digits, '.', '_' or '-'");
    }
    entries = List.copyOf(entries);
  }

  /** A view with one reference per given master id. */
  public static View ofRefs(String id, List<MessageId> ids) {
    List<ViewEntry> e = new ArrayList<>(ids.size());
    for (MessageId m : ids) {
      e.add(new ViewEntry.Ref(m));
    }
    return new View(id, e);
  }

  /** This view with one more entry at the end. */
  public View plus(ViewEntry entry) {
    List<ViewEntry> e = new ArrayList<>(entries.size() + 1);
    e.addAll(entries);
    e.add(entry);
    return new View(id, e);
  }

  public int size() {
    return entries.size();
  }
}
