package dev.compactor.core.view;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@link Conversation} held in memory.
 *
 * <p>Appending a message stores it in the master log and adds a reference to the active view.
 * Compactions {@linkplain #switchTo switch} to a new view; the master log is never rewritten, so
 * {@link #recover} returns the exact original messages behind any synthesized entry of any view,
 * after any number of compactions. Not thread-safe.
 */
public final class InMemoryConversation implements Conversation {
  private final MasterLog master;
  private final List<View> views = new ArrayList<>();
  private final Map<MessageId, List<MessageId>> synthesizedCovers = new HashMap<>();
  private View active;

  /** A conversation whose single view references every message already in {@code master}. */
  public InMemoryConversation(MasterLog master) {
    this.master = master;
    this.active = View.ofRefs(View.MASTER_ID, master.messages().stream().map(Message::id).toList());
    views.add(active);
  }

  /**
   * A conversation restored with its views, the last of which is active.
   *
   * @throws CompactorException when a view references a message the master log does not have
   */
  public InMemoryConversation(MasterLog master, List<View> history) {
    this.master = master;
    if (history.isEmpty()) {
      throw new IllegalArgumentException("a conversation needs at least one view");
    }
    for (View v : history) {
      check(v);
      views.add(v);
      index(v);
    }
    this.active = history.get(history.size() - 1);
  }

  @Override
  public MasterLog master() {
    return master;
  }

  @Override
  public View activeView() {
    return active;
  }

  /** Every view, oldest first; the last is the active one. */
  @Override
  public List<View> views() {
    return List.copyOf(views);
  }

  /** Appends a message to the master log and references it from the active view. */
  @Override
  public void append(Message message) {
    master.append(message);
    active = active.plus(new ViewEntry.Ref(message.id()));
    views.set(views.size() - 1, active);
  }

  /**
   * Appends messages in order to the master log ({@link MasterLog#appendAll}, which may store them
   * together) and references them from the active view.
   *
   * @throws IllegalArgumentException when a message's id is already stored or repeated (nothing is
   *     appended then)
   */
  public void appendAll(List<Message> messages) {
    master.appendAll(messages);
    List<ViewEntry> entries = new ArrayList<>(active.size() + messages.size());
    entries.addAll(active.entries());
    for (Message m : messages) {
      entries.add(new ViewEntry.Ref(m.id()));
    }
    active = new View(active.id(), entries);
    views.set(views.size() - 1, active);
  }

  /** The messages of the active view, as sent to a model (including uiOnly ones; filter those). */
  @Override
  public List<Message> activeMessages() {
    return resolve(active);
  }

  /** The messages of a view. */
  @Override
  public List<Message> resolve(View view) {
    List<Message> out = new ArrayList<>(view.size());
    for (ViewEntry e : view.entries()) {
      if (e instanceof ViewEntry.Ref r) {
        out.add(
            master
                .get(r.id())
                .orElseThrow(
                    () ->
                        new CompactorException(
                            "view " + view.id() + " references unknown message " + r.id())));
      } else if (e instanceof ViewEntry.Synthesized s) {
        out.add(s.message());
      }
    }
    return out;
  }

  /**
   * Makes {@code next} the active view. Its id must be new.
   *
   * @throws CompactorException when the view id is taken, a reference or covered id is not in the
   *     master log, or a synthesized id collides with a master id
   */
  @Override
  public void switchTo(View next) {
    for (View v : views) {
      if (v.id().equals(next.id())) {
        throw new CompactorException("view id " + next.id() + " is already used");
      }
    }
    check(next);
    views.add(next);
    index(next);
    active = next;
  }

  /** The id the next compaction view should take: {@code compacted-001}, {@code compacted-002}… */
  @Override
  public String nextViewId() {
    int n = 0;
    for (View v : views) {
      if (v.id().startsWith("compacted-")) {
        try {
          n = Math.max(n, Integer.parseInt(v.id().substring("compacted-".length())));
        } catch (NumberFormatException ignored) {
          // a custom id: does not take part in numbering
        }
      }
    }
    return String.format("compacted-%03d", n + 1);
  }

  /**
   * The original messages behind an id: the master message itself, or every master message a
   * synthesized entry (of any view) covers, in master order.
   *
   * @throws CompactorException when no master message or synthesized entry has this id
   */
  @Override
  public List<Message> recover(MessageId id) {
    if (master.indexOf(id) >= 0) {
      return List.of(master.get(id).orElseThrow());
    }
    List<MessageId> covers = synthesizedCovers.get(id);
    if (covers == null) {
      throw new CompactorException(
          "no message or synthesized entry with id "
              + id
              + " in any of "
              + views.size()
              + " views");
    }
    return covers.stream().map(c -> master.get(c).orElseThrow()).toList();
  }

  private void check(View v) {
    Set<MessageId> seen = new HashSet<>();
    for (ViewEntry e : v.entries()) {
      if (e instanceof ViewEntry.Ref r) {
        if (master.indexOf(r.id()) < 0) {
          throw new CompactorException(
              "view " + v.id() + " references message " + r.id() + " not in the master log");
        }
        if (!seen.add(r.id())) {
          throw new CompactorException("view " + v.id() + " references " + r.id() + " twice");
        }
      } else if (e instanceof ViewEntry.Synthesized s) {
        MessageId sid = s.message().id();
        if (master.indexOf(sid) >= 0 || !seen.add(sid)) {
          throw new CompactorException(
              "view " + v.id() + ": synthesized id " + sid + " is not unique");
        }
        List<MessageId> known = synthesizedCovers.get(sid);
        if (known != null && !known.equals(s.covers())) {
          throw new CompactorException(
              "view " + v.id() + ": synthesized id " + sid + " reused with other coverage");
        }
        for (MessageId c : s.covers()) {
          if (master.indexOf(c) < 0) {
            throw new CompactorException(
                "view " + v.id() + ": " + sid + " covers " + c + ", not in the master log");
          }
        }
      }
    }
  }

  private void index(View v) {
    for (ViewEntry e : v.entries()) {
      if (e instanceof ViewEntry.Synthesized s) {
        synthesizedCovers.put(s.message().id(), s.covers());
      }
    }
  }
}
