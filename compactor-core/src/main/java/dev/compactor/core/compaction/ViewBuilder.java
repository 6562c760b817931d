package dev.compactor.core.compaction;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a {@link CompactionResult} computed on a view's messages into the next {@link View}.
 *
 * <p>A result message that is one of the source messages (same id, equal) keeps that source's
 * entry. A message with a new id becomes a {@link ViewEntry.Synthesized} entry covering the master
 * messages behind the source messages its {@linkplain CompactionResult#provenance() provenance}
 * names. A new message without provenance covers the source messages dropped right before it
 * (between the previous kept message and it); a message that reuses a source id with different
 * content is treated as a replacement of that source (given a fresh id derived from it). Covers are
 * always flattened to master ids, so recovery works after any number of compactions.
 */
public final class ViewBuilder {
  private ViewBuilder() {}

  /**
   * Builds the next view.
   *
   * @param current the view the result was computed on
   * @param currentMessages {@code current}'s messages, in order (as resolved)
   * @param result the provider's result
   * @param viewId id of the new view
   * @throws CompactorException when the result contains a new message that covers nothing, names an
   *     unknown source in its provenance, or repeats a message
   */
  public static View build(
      View current, List<Message> currentMessages, CompactionResult result, String viewId) {
    if (current.size() != currentMessages.size()) {
      throw new IllegalArgumentException(
          "view "
              + current.id()
              + " has "
              + current.size()
              + " entries but "
              + currentMessages.size()
              + " messages were given");
    }
    Map<MessageId, Integer> sourceIndex = new HashMap<>();
    for (int i = 0; i < currentMessages.size(); i++) {
      sourceIndex.put(currentMessages.get(i).id(), i);
    }
    MasterOrder order = new MasterOrder(current);
    List<ViewEntry> out = new ArrayList<>(result.messages().size());
    Set<MessageId> used = new LinkedHashSet<>();
    int lastKept = -1; // index in the source of the last source message kept or covered
    for (Message m : result.messages()) {
      Integer si = sourceIndex.get(m.id());
      List<MessageId> prov = result.provenance().get(m.id());
      if (si != null && prov == null && m.equals(currentMessages.get(si))) {
        if (!used.add(m.id())) {
          throw new CompactorException("compaction result repeats message " + m.id());
        }
        out.add(current.entries().get(si));
        lastKept = Math.max(lastKept, si);
        continue;
      }
      List<Integer> sources = new ArrayList<>();
      Message synthesized = m;
      if (prov != null) {
        for (MessageId p : prov) {
          Integer pi = sourceIndex.get(p);
          if (pi == null) {
            throw new CompactorException(
                "compaction result message " + m.id() + " names unknown source message " + p);
          }
          sources.add(pi);
        }
      } else if (si != null) {
        // Same id, other content: a replacement of that source message.
        sources.add(si);
        synthesized = m.withId(MessageId.of(m.id().value() + "~" + viewId));
      } else {
        int next = nextKeptSource(result.messages(), m, sourceIndex, currentMessages);
        for (int i = lastKept + 1; i < next; i++) {
          sources.add(i);
        }
      }
      if (sources.isEmpty()) {
        throw new CompactorException(
            "compaction result message "
                + m.id()
                + " is new but stands for no source message (set its provenance)");
      }
      Set<MessageId> covers = new LinkedHashSet<>();
      for (int i : sources) {
        covers.addAll(coversOf(current.entries().get(i)));
        lastKept = Math.max(lastKept, i);
      }
      if (!used.add(synthesized.id())) {
        throw new CompactorException("compaction result repeats message " + synthesized.id());
      }
      out.add(new ViewEntry.Synthesized(synthesized, order.sorted(covers)));
    }
    return new View(viewId, out);
  }

  private static int nextKeptSource(
      List<Message> result,
      Message after,
      Map<MessageId, Integer> sourceIndex,
      List<Message> source) {
    boolean seen = false;
    for (Message m : result) {
      if (seen) {
        Integer si = sourceIndex.get(m.id());
        if (si != null && m.equals(source.get(si))) {
          return si;
        }
      } else if (m == after) {
        seen = true;
      }
    }
    return source.size();
  }

  private static List<MessageId> coversOf(ViewEntry e) {
    if (e instanceof ViewEntry.Ref r) {
      return List.of(r.id());
    }
    return ((ViewEntry.Synthesized) e).covers();
  }

  /**
   * The order of the master ids the current view covers (which is master order): its entries, then
   * each entry's covers. Indexed once per build, so that ordering the covers of every rewritten
   * message costs their number, not the size of the view.
   */
  private static final class MasterOrder {
    private final View current;
    private final Map<MessageId, Integer> position = new HashMap<>();
    private final boolean repeats;

    MasterOrder(View current) {
      this.current = current;
      boolean repeated = false;
      int at = 0;
      for (ViewEntry e : current.entries()) {
        for (MessageId id : coversOf(e)) {
          repeated |= position.putIfAbsent(id, at++) != null;
        }
      }
      this.repeats = repeated;
    }

    /** {@code covers} in the order they appear in the current view. */
    List<MessageId> sorted(Set<MessageId> covers) {
      if (repeats) {
        return scan(covers); // an id covered twice is listed once per place it is covered
      }
      long[] keys = new long[covers.size()];
      MessageId[] ids = covers.toArray(new MessageId[0]);
      int n = 0;
      for (int i = 0; i < ids.length; i++) {
        Integer p = position.get(ids[i]);
        if (p != null) {
          keys[n++] = ((long) p << 32) | i;
        }
      }
      Arrays.sort(keys, 0, n);
      List<MessageId> ordered = new ArrayList<>(n);
      for (int k = 0; k < n; k++) {
        ordered.add(ids[(int) keys[k]]);
      }
      return ordered;
    }

    private List<MessageId> scan(Set<MessageId> covers) {
      List<MessageId> ordered = new ArrayList<>(covers.size());
      for (ViewEntry e : current.entries()) {
        for (MessageId id : coversOf(e)) {
          if (covers.contains(id)) {
            ordered.add(id);
          }
        }
      }
      return ordered;
    }
  }
}
