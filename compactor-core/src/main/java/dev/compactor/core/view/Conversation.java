package dev.compactor.core.view;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.List;

/**
 * A conversation: its lossless {@link MasterLog} plus the views made of it, one of them active.
 *
 * <p>Appending a message stores it in the master log and adds a reference to the active view.
 * Compactions {@linkplain #switchTo switch} to a new view; the master log is never rewritten, so
 * {@link #recover} returns the exact original messages behind any synthesized entry of any view,
 * after any number of compactions.
 *
 * <p>Implementations: {@link InMemoryConversation}; {@code StoredConversation} of {@code
 * compactor-log} (on disk, durable).
 */
public interface Conversation {

  /** The master log (read it; append through {@link #append}). */
  MasterLog master();

  /** The view sent to the model. */
  View activeView();

  /** Every view, oldest first; the last is the active one. */
  List<View> views();

  /** Appends a message to the master log and references it from the active view. */
  void append(Message message);

  /** The messages of the active view (including uiOnly ones; filter those before sending). */
  List<Message> activeMessages();

  /** The messages of a view. */
  List<Message> resolve(View view);

  /**
   * Makes {@code next} the active view. Its id must be new. On failure nothing changes.
   *
   * @throws dev.compactor.core.CompactorException when the view id is taken or the view refers to
   *     messages the master log does not have
   */
  void switchTo(View next);

  /** The id the next compaction view should take: {@code compacted-001}, {@code compacted-002}… */
  String nextViewId();

  /**
   * The original messages behind an id: the master message itself, or every master message a
   * synthesized entry (of any view) covers, in master order.
   *
   * @throws dev.compactor.core.CompactorException when no master message or synthesized entry has
   *     this id
   */
  List<Message> recover(MessageId id);
}
