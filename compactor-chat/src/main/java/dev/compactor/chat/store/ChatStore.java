package dev.compactor.chat.store;

import dev.compactor.chat.auth.KeyStore;
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
 * <p><b>Tenants.</b> Every method is scoped by the tenant of its {@link ChatKey} (or the tenant it
 * is given): no method reads, lists, counts or deletes another tenant's chat, and a chat of another
 * tenant looks exactly like one that does not exist.
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
   * The chat's chat task calls, oldest first, each with the compaction report it returned; empty
   * when none. (Calls stored before the store kept them are not listed.)
   *
   * @throws ChatStoreException when the database fails
   */
  List<CallRecord> calls(ChatKey key);

  /**
   * The messages removed from the chat's history, in the order they were removed.
   *
   * @throws ChatStoreException when the database fails
   */
  List<ArchivedMessage> archivedMessages(ChatKey key);

  /** Most chats or messages one page may hold. */
  int MAX_PAGE_SIZE = 1000;

  /**
   * One page of {@code tenant}'s chats, newest first: by last update ({@link
   * ChatRecord#updatedAt()}), then by chat id, both descending. Paging is by keyset: the cursor
   * names the last chat of the previous page, so chats created or updated while a client pages
   * appear at the head of the listing and shift nothing: no chat is listed twice in one traversal,
   * and every chat not changed meanwhile is listed once. (A chat updated during the traversal moves
   * to the head; a traversal that already passed it does not list it again.)
   *
   * @param tenant whose chats (a {@link ChatKey} tenant)
   * @param cursor {@link ChatPage#next()} of the previous page, or null for the first page
   * @param limit the page size, 1 to {@value #MAX_PAGE_SIZE}
   * @throws IllegalArgumentException when the tenant is invalid, the limit is out of range or the
   *     cursor is not one this method made (each naming the value)
   * @throws ChatStoreException when the database fails
   */
  ChatPage listChats(String tenant, String cursor, int limit);

  /**
   * The chat's record and counters, without its messages; empty when it was never stored.
   *
   * @throws ChatStoreException when the database fails
   */
  Optional<ChatOverview> overview(ChatKey key);

  /**
   * One page of the chat's messages, read in one snapshot; empty when the chat was never stored.
   *
   * <p>Without the archive the list is the history, in order. With it, it is every message the chat
   * ever held, in the order they stood in the chat: the messages a summary replaced come right
   * before the summary message (recursively, when summaries roll up), messages a {@code set}
   * replaced before the history that replaced them; each archived one is marked ({@link
   * MessageEntry#archived()}). An offset counts in the list asked for: the history shrinks when a
   * summary replaces messages, the list with the archive only grows.
   *
   * @param offset the position of the page's first message, at least 0
   * @param limit the page size, 1 to {@value #MAX_PAGE_SIZE}
   * @param includeArchived whether archived messages are in the list
   * @throws IllegalArgumentException when the offset or limit is out of range
   * @throws ChatStoreException when the database fails
   */
  Optional<MessagePage> messages(ChatKey key, int offset, int limit, boolean includeArchived);

  /**
   * Deletes the chat: its record, history, archive, summary records and call records, in one
   * transaction. Waits for a call on this chat that is in progress (in this process, or holding the
   * PostgreSQL row lock), never for other chats. A later call on the same id starts a new chat.
   *
   * @return whether the chat existed
   * @throws ChatStoreException when the database fails (nothing is deleted then)
   */
  boolean delete(ChatKey key);

  /**
   * The API keys kept in the same database (the same connections; migrated with the chats). On a
   * store opened read-only the keys can be listed and authenticate, but not be created or revoked.
   */
  KeyStore keys();

  /** Where the store keeps its data, for messages: a file path or a JDBC URL without secrets. */
  String describe();

  /** Releases connections. Idempotent. */
  @Override
  void close();
}
