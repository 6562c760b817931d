package dev.compactor.server.inspect;

import dev.compactor.chat.store.ChatStore;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.server.proxy.ProxyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The proxy's conversations and the chat tasks of a running service. */
final class ServiceSource implements InspectorSource {
  /** Most conversations the list shows. */
  static final int LIST_LIMIT = 1000;

  private final ProxyStore proxy;
  private final ChatStore chats;
  private final TokenCounter counter = TokenCounters.o200k();

  ServiceSource(ProxyStore proxy, ChatStore chats) {
    this.proxy = proxy;
    this.chats = chats;
  }

  @Override
  public List<ConversationItem> conversations(String tenant) {
    if (proxy == null) {
      return List.of();
    }
    List<ConversationItem> out = new ArrayList<>();
    for (ProxyStore.Summary c : proxy.list(tenant, null, LIST_LIMIT).conversations()) {
      out.add(
          new ConversationItem(
              c.id(),
              c.externalKey() == null ? c.id() : c.externalKey(),
              "proxy " + c.api(),
              (int) Math.min(Integer.MAX_VALUE, c.messages()),
              c.tokens() == null ? -1 : c.tokens(),
              c.model(),
              c.lastActivity().toString(),
              c.compactions()));
    }
    return out;
  }

  @Override
  public Optional<InspectedConversation> conversation(String tenant, String id) {
    if (proxy == null) {
      return Optional.empty();
    }
    return proxy
        .byId(tenant, id)
        .map(
            c ->
                ProxyConversation.of(
                    c, proxy.log(c.id()), proxy.requests(c.id()), counter, model(tenant, id)));
  }

  @Override
  public Optional<List<Original>> recover(String tenant, String conversationId, String entryId) {
    if (proxy == null) {
      return Optional.empty();
    }
    Optional<ProxyStore.Conversation> c = proxy.byId(tenant, conversationId);
    if (c.isEmpty()) {
      return Optional.empty();
    }
    List<ProxyStore.LogEntry> log = proxy.log(conversationId);
    InspectedConversation ic = ProxyConversation.of(c.get(), log, List.of(), counter, null);
    for (InspectedConversation.ViewRow r : ic.view()) {
      if (r.messageId().equals(entryId) && r.recoverable()) {
        List<Original> out = new ArrayList<>();
        for (int i : r.covers()) {
          InspectedConversation.MasterRow m = ic.master().get(i);
          // the stored item itself, byte for byte as the proxy logged it
          out.add(new Original(i, m.id(), m.role(), log.get(i).body()));
        }
        return Optional.of(out);
      }
    }
    return Optional.empty();
  }

  private String model(String tenant, String id) {
    return proxy.summary(tenant, id).map(ProxyStore.Summary::model).orElse(null);
  }

  @Override
  public ChatStore chats() {
    return chats;
  }
}
