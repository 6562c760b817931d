package dev.compactor.server.inspect;

import dev.compactor.chat.store.ChatStore;
import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.log.store.StoredConversation;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One conversation directory; its id in addresses is its directory name. */
record DirectorySource(
    StoredConversation conversation, String model, long budget, long window, TokenCounter counter)
    implements InspectorSource {

  private String id() {
    return conversation.directory().getFileName().toString();
  }

  @Override
  public List<ConversationItem> conversations(String tenant) {
    InspectedConversation c = read();
    String last = null;
    try {
      last = Files.getLastModifiedTime(conversation.conversationFile()).toInstant().toString();
    } catch (java.io.IOException e) {
      // no time to show
    }
    long tokens = c.master().stream().mapToLong(InspectedConversation.MasterRow::tokens).sum();
    return List.of(
        new ConversationItem(
            id(),
            c.title(),
            "directory",
            c.master().size(),
            tokens,
            model,
            last,
            c.journal().size()));
  }

  @Override
  public Optional<InspectedConversation> conversation(String tenant, String id) {
    return id().equals(id) ? Optional.of(read()) : Optional.empty();
  }

  private InspectedConversation read() {
    return DirectoryConversation.of(id(), conversation, model, budget, window, counter);
  }

  @Override
  public Optional<List<Original>> recover(String tenant, String conversationId, String entryId) {
    if (!id().equals(conversationId)) {
      return Optional.empty();
    }
    List<Message> originals;
    try {
      originals = conversation.recover(new MessageId(entryId));
    } catch (CompactorException | IllegalArgumentException e) {
      return Optional.empty();
    }
    Map<MessageId, Integer> index = new HashMap<>();
    List<Message> master = conversation.master().messages();
    for (int i = 0; i < master.size(); i++) {
      index.put(master.get(i).id(), i);
    }
    List<Original> out = new ArrayList<>();
    for (Message m : originals) {
      out.add(
          new Original(
              index.getOrDefault(m.id(), -1), m.id().toString(), m.role().wireName(), m.content()));
    }
    return Optional.of(out);
  }

  @Override
  public ChatStore chats() {
    return null;
  }
}
