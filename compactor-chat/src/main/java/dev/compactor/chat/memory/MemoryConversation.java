package dev.compactor.chat.memory;

import dev.compactor.chat.store.ConversationStore;
import dev.compactor.chat.store.DatabaseConversation;
import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.View;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One conversation of a framework's chat memory: its {@link Compactor.Session}, the journal its
 * compactions are recorded in, the resource to close, and — in a {@link ConversationStore} — its
 * stored system message. The memory kept in this process, in a conversation directory ({@link
 * #over}, e.g. a {@code StoredConversation} of {@code compactor-log}) or in a store ({@link
 * #inStore}) behaves the same through it.
 *
 * <p>Not thread-safe: the memory serializes the calls on one conversation.
 */
public final class MemoryConversation implements AutoCloseable {
  private final Compactor.Session session;
  private final CompactionListener journal;
  private final AutoCloseable resource;

  private MemoryConversation(
      Compactor.Session session, CompactionListener journal, AutoCloseable resource) {
    this.session = session;
    this.journal = journal;
    this.resource = resource;
  }

  /** A conversation that lives in this process only. */
  public static MemoryConversation inProcess(Compactor compactor) {
    return new MemoryConversation(compactor.session(), null, null);
  }

  /**
   * A conversation kept by {@code conversation} (e.g. a conversation directory), whose compactions
   * go to {@code journal} and which {@link #close} closes.
   */
  public static <C extends Conversation & AutoCloseable> MemoryConversation over(
      Compactor compactor, C conversation, CompactionListener journal) {
    Objects.requireNonNull(conversation, "conversation");
    return new MemoryConversation(
        compactor.session(conversation), Objects.requireNonNull(journal, "journal"), conversation);
  }

  /**
   * The conversation {@code id} of {@code store}, with its journal and system message (the store
   * stays the caller's to close).
   */
  public static MemoryConversation inStore(
      Compactor compactor, ConversationStore store, String id) {
    DatabaseConversation conversation = store.conversation(id);
    return new MemoryConversation(compactor.session(conversation), conversation, null);
  }

  /** The session: the log, its views and the policy. */
  public Compactor.Session session() {
    return session;
  }

  /** Runs the automatic policy and records a compaction in the conversation's journal. */
  public CompactionOutcome afterTurn() {
    CompactionOutcome o = session.afterTurn();
    if (journal != null && o instanceof CompactionOutcome.Compacted c) {
      journal.compacted(c.report());
    }
    return o;
  }

  /** The system message the store keeps for the conversation (none outside a store). */
  public Optional<Message> storedSystemMessage() {
    return database().flatMap(DatabaseConversation::systemMessage);
  }

  /** Keeps {@code text} as the conversation's system message in its store; null forgets it. */
  public void storeSystemMessage(String text) {
    database().ifPresent(d -> d.systemMessage(text == null ? null : Message.system(text)));
  }

  private Optional<DatabaseConversation> database() {
    return session.conversation() instanceof DatabaseConversation d
        ? Optional.of(d)
        : Optional.empty();
  }

  /** Switches to an empty view; the log keeps every message, recoverable. */
  public void clearView() {
    Conversation c = session.conversation();
    c.switchTo(View.ofRefs(c.nextViewId(), List.of()));
  }

  /**
   * Every message ever appended, oldest first: the master log without the UI-only notes compaction
   * writes into it.
   */
  public List<Message> history() {
    return session.conversation().master().messages().stream().filter(m -> !m.uiOnly()).toList();
  }

  /** Closes the conversation's directory (when it has one). */
  @Override
  public void close() throws Exception {
    if (resource != null) {
      resource.close();
    }
  }
}
