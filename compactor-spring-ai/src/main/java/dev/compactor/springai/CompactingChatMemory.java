package dev.compactor.springai;

import dev.compactor.chat.memory.MemoryBuilder;
import dev.compactor.chat.memory.MemoryConversation;
import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.log.store.ConversationNames;
import dev.compactor.log.store.StoredConversation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.SystemMessage;

/**
 * A Spring AI {@link ChatMemory} that compacts instead of evicting, and keeps tool calls and tool
 * results: every message of a conversation goes to a lossless master log; {@link #get} returns the
 * active view, kept within the budget by Compactor's default policy (batched masking of old tool
 * output, trim toward 70 %, then a checkpoint summary), never separating a call from its result.
 * The latest system message of a conversation is kept beside the log and returned first.
 *
 * <p>With {@link Builder#directory} each conversation lives in a conversation directory below it
 * (the format of {@code compactor inspect}); with {@link Builder#store} in a SQLite or PostgreSQL
 * {@link ConversationStore} (the one a {@link CompactorChatMemoryRepository} may share), with its
 * system message. Either way a restarted service continues its conversations; otherwise they live
 * in this process. Thread-safe: calls on one conversation are serialized, conversations are
 * independent.
 *
 * <pre>{@code
 * CompactingChatMemory memory = CompactingChatMemory.builder()
 *     .compactor(Compactor.forModel("openai/gpt-4o").budget("0.5").reminder(false).build())
 *     .store(ConversationStore.open("sqlite:/var/lib/app/memory.db"))
 *     .build();
 * ChatClient chat = ChatClient.builder(model)
 *     .defaultAdvisors(
 *         ToolCallAdvisor.builder().advisorOrder(Ordered.HIGHEST_PRECEDENCE + 300).build(),
 *         CompactingMemoryAdvisor.of(memory))
 *     .build();
 * }</pre>
 */
public final class CompactingChatMemory implements ChatMemory, AutoCloseable {
  private final Function<String, Compactor> compactors;
  private final Path directory;
  private final ConversationStore store;
  private final Map<String, State> conversations = new ConcurrentHashMap<>();

  private CompactingChatMemory(
      Function<String, Compactor> compactors, Path directory, ConversationStore store) {
    this.compactors = compactors;
    this.directory = directory;
    this.store = store;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** One conversation: its session, its system message, its lock. */
  private static final class State {
    final MemoryConversation conversation;
    final Compactor.Session session;
    SystemMessage system;
    CompactionOutcome lastOutcome;

    State(MemoryConversation conversation) {
      this.conversation = conversation;
      this.session = conversation.session();
      this.system =
          conversation.storedSystemMessage().map(m -> new SystemMessage(m.content())).orElse(null);
    }

    void system(SystemMessage s) {
      conversation.storeSystemMessage(s == null ? null : s.getText());
      system = s;
    }

    CompactionOutcome afterTurn() {
      lastOutcome = conversation.afterTurn();
      return lastOutcome;
    }
  }

  private State state(String conversationId) {
    Objects.requireNonNull(conversationId, "conversationId");
    return conversations.computeIfAbsent(conversationId, this::open);
  }

  private State open(String id) {
    Compactor c = compactors.apply(id);
    if (store != null) {
      return new State(MemoryConversation.inStore(c, store, id));
    }
    if (directory == null) {
      return new State(MemoryConversation.inProcess(c));
    }
    StoredConversation stored =
        StoredConversation.open(directory.resolve(ConversationNames.of(id)));
    return new State(MemoryConversation.over(c, stored, stored.journal()));
  }

  @Override
  public void add(
      String conversationId, List<org.springframework.ai.chat.messages.Message> messages) {
    Objects.requireNonNull(messages, "messages");
    State s = state(conversationId);
    List<org.springframework.ai.chat.messages.Message> rest = new ArrayList<>();
    SystemMessage system = null;
    for (org.springframework.ai.chat.messages.Message m : messages) {
      if (m instanceof SystemMessage sm) {
        system = sm;
      } else {
        rest.add(m);
      }
    }
    List<Message> converted =
        SpringAiMessages.toCompactor(rest); // refuses before anything is added
    synchronized (s) {
      if (system != null) {
        s.system(system);
      }
      converted.forEach(s.session::append);
      if (!converted.isEmpty()) {
        s.afterTurn();
      }
    }
  }

  /**
   * Appends one Compactor message as it is (with its metadata, e.g. the usage of the response it
   * is) and runs the policy, as {@link #add} does.
   */
  CompactionOutcome addNative(String conversationId, Message message) {
    State s = state(conversationId);
    synchronized (s) {
      s.session.append(message);
      return s.afterTurn();
    }
  }

  /**
   * What the policy did after the last messages added to the conversation, or null before the
   * first.
   */
  public CompactionOutcome lastOutcome(String conversationId) {
    State s = state(conversationId);
    synchronized (s) {
      return s.lastOutcome;
    }
  }

  @Override
  public List<org.springframework.ai.chat.messages.Message> get(String conversationId) {
    State s = state(conversationId);
    synchronized (s) {
      List<org.springframework.ai.chat.messages.Message> out = new ArrayList<>();
      if (s.system != null) {
        out.add(s.system);
      }
      out.addAll(SpringAiMessages.toSpringAi(s.session.messages()));
      return out;
    }
  }

  /** Empties the conversation's view; its log keeps every message, recoverable. */
  @Override
  public void clear(String conversationId) {
    State s = state(conversationId);
    synchronized (s) {
      s.conversation.clearView();
      s.system(null);
    }
  }

  /** Every message ever added to the conversation (but system messages), oldest first. */
  public List<org.springframework.ai.chat.messages.Message> history(String conversationId) {
    State s = state(conversationId);
    synchronized (s) {
      return SpringAiMessages.toSpringAi(s.conversation.history());
    }
  }

  /** The conversation's session: its log, views and journal. */
  public Compactor.Session session(String conversationId) {
    return state(conversationId).session;
  }

  /**
   * The ids of the conversations this memory holds (in this process, in its directory or in its
   * store).
   */
  public List<String> conversationIds() {
    List<String> ids = new ArrayList<>(conversations.keySet());
    if (store != null) {
      store.ids().stream().filter(id -> !ids.contains(id)).forEach(ids::add);
    }
    if (directory != null && Files.isDirectory(directory)) {
      try (Stream<Path> dirs = Files.list(directory)) {
        dirs.filter(Files::isDirectory)
            .map(p -> ConversationNames.idOf(p.getFileName().toString()))
            .flatMap(java.util.Optional::stream)
            .filter(id -> !ids.contains(id))
            .forEach(ids::add);
      } catch (IOException e) {
        throw new UncheckedIOException("listing conversations in " + directory, e);
      }
    }
    return ids;
  }

  /** Closes every conversation's directory. */
  @Override
  public void close() {
    for (State s : conversations.values()) {
      try {
        s.conversation.close();
      } catch (Exception e) {
        throw new IllegalStateException("closing a conversation", e);
      }
    }
    conversations.clear();
  }

  /**
   * Builder of {@link CompactingChatMemory}: {@link #compactor} is required; {@link #directory} or
   * {@link #store} keeps the conversations, under their conversation ids.
   */
  public static final class Builder extends MemoryBuilder<String, Builder> {
    private Builder() {}

    @Override
    protected Builder self() {
      return this;
    }

    public CompactingChatMemory build() {
      return build("a compacting memory", CompactingChatMemory::new);
    }
  }
}
