package dev.compactor.server.inspect;

import dev.compactor.chat.store.ChatStore;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.server.proxy.ProxyStore;
import java.util.List;
import java.util.Optional;

/**
 * What the inspector reads, scoped to a tenant: conversations (a conversation directory, or the
 * proxy's), chat tasks, and the originals behind a synthesized entry. Reads only. Implementations
 * are thread-safe.
 */
public interface InspectorSource {
  /**
   * A conversation as the list shows it.
   *
   * @param id its id in addresses
   * @param title its name
   * @param kind "directory" or the proxy's wire format
   * @param messages master log entries
   * @param tokens tokens of the master log
   * @param model its model, or null when unknown
   * @param lastActivity when it last changed (ISO-8601), or null
   * @param compactions compactions so far
   */
  record ConversationItem(
      String id,
      String title,
      String kind,
      int messages,
      long tokens,
      String model,
      String lastActivity,
      int compactions) {}

  /**
   * One original message behind a synthesized entry, exactly as stored.
   *
   * @param index its master index
   * @param id its id
   * @param role its role
   * @param text its content, or the stored item's JSON when it could not be decoded
   */
  record Original(int index, String id, String role, String text) {}

  /** The tenant's conversations, most recent first. */
  List<ConversationItem> conversations(String tenant);

  /** One of the tenant's conversations; empty when it has none of this id. */
  Optional<InspectedConversation> conversation(String tenant, String id);

  /**
   * The original messages a view entry stands for; empty when the tenant has no such conversation
   * or the conversation no such entry.
   */
  Optional<List<Original>> recover(String tenant, String conversationId, String entryId);

  /** The chat-task store, or null when this source has no chats. */
  ChatStore chats();

  /** The proxy's conversations and the chat tasks of a running service (either may be null). */
  static InspectorSource ofService(ProxyStore proxy, ChatStore chats) {
    return new ServiceSource(proxy, chats);
  }

  /**
   * One conversation directory, opened (read-only is enough) by the caller, who closes it. Every
   * tenant sees it: the caller serves it on a loopback address only.
   *
   * @param model the model it is measured for
   * @param budget its context budget in tokens
   * @param window its context window in tokens
   * @param counter the token counter of {@code model}
   */
  static InspectorSource ofDirectory(
      StoredConversation conversation,
      String model,
      long budget,
      long window,
      TokenCounter counter) {
    return new DirectorySource(conversation, model, budget, window, counter);
  }
}
