package dev.compactor.chat.store;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import java.util.List;
import java.util.Optional;

/**
 * Where chats live: their record (settings, counters), history, archive of removed messages and
 * summary records. Stores only persist; every decision is the caller's ({@link ChatWork}).
 *
 * <p><b>Atomicity.</b> {@link #update} applies a call's whole {@link ChatUpdate} in one
 * transaction, or nothing of it.
 *
 * <p><b>Isolation.</b> Two {@link #update}s of the same chat never interleave: within a process a
 * per-chat lock orders them (other chats proceed in parallel). Across processes, {@link
 * PostgresChatStore} holds the chat's row lock ({@code SELECT … FOR UPDATE}) for the whole update,
 * so calls from several service instances queue; {@link SqliteChatStore} checks the chat's version
 * when it writes and fails the later writer with {@link ChatTaskException.Code#CONFLICT}, storing
 * nothing of it.
 *
 * <p>Instants of records are kept to the microsecond (PostgreSQL's precision; SQLite does the
 * same); message timestamps are kept exactly. Implementations are thread-safe. Versioned schema
 * migrations run when a store is opened.
 *
 * <pre>{@code
 * try (ChatStore store = ChatStores.open("/var/lib/app/chats.db")) {
 *   int count = store.update(key, chat -> {
 *     List<Message> history = new ArrayList<>(chat.messages());
 *     history.add(Message.user("hi"));
 *     ChatRecord r = chat.exists() ? chat.record() : ChatRecord.fresh(key, Instant.now());
 *     return ChatWork.Outcome.of(new ChatUpdate(r, history, List.of(), List.of()), history.size());
 *   });
 * }
 * }</pre>
 */
public interface ChatStore extends AutoCloseable {
  /**
   * Runs {@code work} on the chat while holding it, then applies the update it returns.
   *
   * @return the work's value
   * @throws ChatTaskException code {@code CONFLICT} when another process changed the chat meanwhile
   *     (SQLite); any exception the work throws, unchanged (nothing stored)
   * @throws ChatStoreException when the database fails
   * @throws IllegalArgumentException when the update removes messages it does not archive
   */
  <T> T update(ChatKey key, ChatWork<T> work);

  /**
   * The chat as stored now, without locking; empty when it was never stored.
   *
   * @throws ChatStoreException when the database fails
   */
  Optional<ChatSnapshot> find(ChatKey key);

  /**
   * The chat's summary records, oldest first; empty when none.
   *
   * @throws ChatStoreException when the database fails
   */
  List<SummaryRecord> summaries(ChatKey key);

  /**
   * The messages removed from the chat's history, in the order they were removed.
   *
   * @throws ChatStoreException when the database fails
   */
  List<ArchivedMessage> archivedMessages(ChatKey key);

  /** Where the store keeps its data, for messages: a file path or a JDBC URL without secrets. */
  String describe();

  /** Releases connections. Idempotent. */
  @Override
  void close();
}
