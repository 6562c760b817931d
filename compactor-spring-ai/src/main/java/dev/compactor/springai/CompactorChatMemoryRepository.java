package dev.compactor.springai;

import dev.compactor.chat.store.ConversationStore;
import dev.compactor.chat.store.DatabaseConversation;
import dev.compactor.core.message.Message;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.messages.SystemMessage;

/**
 * A Spring AI {@link ChatMemoryRepository} over a {@link ConversationStore} (SQLite or PostgreSQL)
 * that keeps every message type: user, assistant with its tool calls, tool responses and the system
 * message. Spring AI's own JDBC repositories store only user, assistant and system text (#2101,
 * #4315), so a memory over them loses the tool rounds of an agent.
 *
 * <p>Each conversation is a Compactor conversation: {@link #saveAll} makes the given messages its
 * active view, appending to the lossless master log only what is new (messages already in the view
 * are kept by reference), so a {@code MessageWindowChatMemory} over this repository evicts from the
 * view while the log keeps every message it ever saved (see {@link DatabaseConversation#master()}).
 * The same store serves {@link CompactingChatMemory}: both see the same conversations.
 *
 * <p>Thread-safe; the store stays the caller's to close.
 *
 * <pre>{@code
 * ConversationStore store = ConversationStore.open("postgresql://app@db/app");
 * ChatMemory memory = MessageWindowChatMemory.builder()
 *     .chatMemoryRepository(new CompactorChatMemoryRepository(store))
 *     .build();
 * }</pre>
 */
public final class CompactorChatMemoryRepository implements ChatMemoryRepository {
  private final ConversationStore store;

  public CompactorChatMemoryRepository(ConversationStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  @Override
  public List<String> findConversationIds() {
    return store.ids();
  }

  /** The system message (when there is one), then the conversation's active view. */
  @Override
  public List<org.springframework.ai.chat.messages.Message> findByConversationId(
      String conversationId) {
    DatabaseConversation c = store.conversation(conversationId);
    List<org.springframework.ai.chat.messages.Message> out = new ArrayList<>();
    c.systemMessage().ifPresent(s -> out.add(new SystemMessage(s.content())));
    out.addAll(
        SpringAiMessages.toSpringAi(c.activeMessages().stream().filter(m -> !m.uiOnly()).toList()));
    return out;
  }

  /**
   * Makes {@code messages} the conversation's content: the (last) system message is stored beside
   * the log, the others become the active view. The longest run at the start of {@code messages}
   * that is found, in order, in the current view is kept by reference; the rest is appended to the
   * log.
   *
   * @throws IllegalArgumentException for a message type Compactor cannot hold, or a tool call or
   *     result without an id (nothing is stored then)
   */
  @Override
  public synchronized void saveAll(
      String conversationId, List<org.springframework.ai.chat.messages.Message> messages) {
    Objects.requireNonNull(messages, "messages");
    SystemMessage system = null;
    List<org.springframework.ai.chat.messages.Message> rest = new ArrayList<>();
    for (org.springframework.ai.chat.messages.Message m : messages) {
      if (m instanceof SystemMessage s) {
        system = s;
      } else {
        rest.add(m);
      }
    }
    List<Message> wanted = SpringAiMessages.toCompactor(rest); // refuses before anything is stored
    DatabaseConversation c = store.conversation(conversationId);
    List<Message> current = c.activeMessages().stream().filter(m -> !m.uiOnly()).toList();
    List<ViewEntry> kept = new ArrayList<>();
    int at = 0;
    int matched = 0;
    for (Message w : wanted) {
      int found = -1;
      for (int j = at; j < current.size(); j++) {
        if (same(current.get(j), w)) {
          found = j;
          break;
        }
      }
      if (found < 0) {
        break;
      }
      kept.add(new ViewEntry.Ref(current.get(found).id()));
      at = found + 1;
      matched++;
    }
    boolean unchangedPrefix = matched == current.size() && isPlainPrefix(c, current);
    if (!unchangedPrefix) {
      c.switchTo(new View(c.nextViewId(), kept));
    }
    for (Message w : wanted.subList(matched, wanted.size())) {
      c.append(w);
    }
    c.systemMessage(system == null ? null : Message.system(system.getText()));
  }

  /** Whether the active view is exactly {@code current} with nothing hidden (no UI-only notes). */
  private static boolean isPlainPrefix(DatabaseConversation c, List<Message> current) {
    return c.activeView().size() == current.size();
  }

  private static boolean same(Message a, Message b) {
    return a.role() == b.role()
        && a.content().equals(b.content())
        && a.toolCalls().equals(b.toolCalls())
        && Objects.equals(a.toolCallId(), b.toolCallId())
        && Objects.equals(
            a.metadata().extra().get(SpringAiMessages.TOOL_NAME),
            b.metadata().extra().get(SpringAiMessages.TOOL_NAME));
  }

  /** Deletes the conversation: its log, views and system message. */
  @Override
  public void deleteByConversationId(String conversationId) {
    store.delete(conversationId);
  }
}
