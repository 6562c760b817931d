package dev.compactor.core.view;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.List;
import java.util.Objects;

/**
 * One entry of a {@link View}: either a reference to a master message, sent as it is, or a message
 * a compaction synthesized (a stub, a truncated result, a checkpoint) that records exactly which
 * master messages it stands for.
 */
public sealed interface ViewEntry permits ViewEntry.Ref, ViewEntry.Synthesized {

  /** A master message, unchanged. */
  record Ref(MessageId id) implements ViewEntry {
    public Ref {
      Objects.requireNonNull(id, "id");
    }
  }

  /**
   * A synthesized message.
   *
   * @param message the message sent in place of the covered ones; its id is new and unique
   * @param covers the master messages it replaces, in master order; never empty, always master ids
   *     (a synthesized message that replaces another synthesized message covers that one's master
   *     messages)
   */
  record Synthesized(Message message, List<MessageId> covers) implements ViewEntry {
    public Synthesized {
      Objects.requireNonNull(message, "message");
      covers = List.copyOf(covers);
      if (covers.isEmpty()) {
        throw new IllegalArgumentException(
            "synthesized message " + message.id() + " must cover at least one master message");
      }
    }
  }
}
