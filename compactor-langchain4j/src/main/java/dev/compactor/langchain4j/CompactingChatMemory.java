package dev.compactor.langchain4j;

import dev.compactor.chat.memory.MemoryConversation;
import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.log.store.StoredConversation;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.memory.ChatMemory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A LangChain4j {@link ChatMemory} that compacts instead of evicting: every message goes to a
 * lossless master log; {@link #messages()} returns the active view, which Compactor's default
 * policy (batched masking of old tool output, then trim toward 70 % of the budget, then a
 * checkpoint summary) keeps within the budget. Tool calls and their results are never separated:
 * nothing is compacted while the last AI message's tool calls await results, and no view holds a
 * result without its call. Every original message stays recoverable ({@link #recover}).
 *
 * <p><b>System messages.</b> Like LangChain4j's own memories, the memory holds one system message,
 * the latest one added, first in {@link #messages()}; it is kept beside the log (AI Services add it
 * on every call) and is not counted in the budget.
 *
 * <p><b>Persistence.</b> With {@link Builder#directory} the log, the views and the compaction
 * journal live in a conversation directory (the format of {@code compactor compact}); with {@link
 * Builder#store} they live in a SQLite or PostgreSQL {@link ConversationStore}, under the memory
 * id, with the system message. Either way a restarted service continues where it stopped (a new
 * memory on the same directory or store and id); otherwise they live in memory.
 *
 * <p>Thread-safe: calls on one memory are serialized (AI Services may call one memory from several
 * threads).
 *
 * <pre>{@code
 * ChatMemory memory = CompactingChatMemory.builder()
 *     .id("user-42")
 *     .compactor(Compactor.forModel("openai/gpt-4o").budget("0.5").reminder(false).build())
 *     .build();
 * Assistant assistant = AiServices.builder(Assistant.class)
 *     .chatModel(model).chatMemory(memory).tools(new Tools()).build();
 * }</pre>
 */
public final class CompactingChatMemory implements ChatMemory, AutoCloseable {
  private final Object id;
  private final ReentrantLock lock = new ReentrantLock();
  private final MemoryConversation conversation;
  private final Compactor.Session session;
  private SystemMessage system;
  private CompactionOutcome lastOutcome;

  private CompactingChatMemory(Builder b) {
    this.id = Objects.requireNonNull(b.id, "id");
    Compactor compactor = Objects.requireNonNull(b.compactor, "compactor");
    if (b.directory != null && b.store != null) {
      throw new IllegalStateException("memory " + id + ": give a directory or a store, not both");
    }
    if (b.directory != null) {
      StoredConversation stored = StoredConversation.open(b.directory);
      this.conversation = MemoryConversation.over(compactor, stored, stored.journal());
    } else if (b.store != null) {
      this.conversation = MemoryConversation.inStore(compactor, b.store, String.valueOf(id));
    } else {
      this.conversation = MemoryConversation.inProcess(compactor);
    }
    this.session = conversation.session();
    this.system =
        conversation.storedSystemMessage().map(m -> SystemMessage.from(m.content())).orElse(null);
  }

  private void keepSystem(SystemMessage s) {
    conversation.storeSystemMessage(s == null ? null : s.text());
    system = s;
  }

  /** Runs {@code action} holding the memory's lock; returns what it returns. */
  private <T> T locked(Supplier<T> action) {
    lock.lock();
    try {
      return action.get();
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code action} holding the memory's lock. */
  private void locked(Runnable action) {
    locked(
        () -> {
          action.run();
          return null;
        });
  }

  /** A builder; {@link Builder#compactor} is required. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public Object id() {
    return id;
  }

  /**
   * Appends {@code message} to the log and runs the automatic policy (which waits while tool calls
   * are pending).
   *
   * @throws IllegalArgumentException for a message Compactor cannot hold (see {@link
   *     LangChain4jMessages#toCompactor})
   */
  @Override
  public void add(ChatMessage message) {
    Objects.requireNonNull(message, "message");
    locked(
        () -> {
          if (message instanceof SystemMessage s) {
            keepSystem(s);
            return;
          }
          session.append(LangChain4jMessages.toCompactor(message));
          lastOutcome = conversation.afterTurn();
        });
  }

  /** The system message, then the active view, oldest first. */
  @Override
  public List<ChatMessage> messages() {
    return locked(
        () -> {
          List<ChatMessage> out = new ArrayList<>();
          if (system != null) {
            out.add(system);
          }
          for (Message m : session.messages()) {
            out.add(LangChain4jMessages.toLangChain4j(m));
          }
          return out;
        });
  }

  /**
   * Replaces what {@link #messages()} returns, atomically: the new messages are appended to the log
   * and become the whole active view (the old messages stay in the log, recoverable).
   */
  @Override
  public void set(Iterable<ChatMessage> messages) {
    Objects.requireNonNull(messages, "messages");
    List<Message> converted = new ArrayList<>();
    SystemMessage newSystem = null;
    for (ChatMessage m : messages) {
      if (m instanceof SystemMessage s) {
        newSystem = s;
      } else {
        converted.add(LangChain4jMessages.toCompactor(m));
      }
    }
    SystemMessage latestSystem = newSystem;
    locked(
        () -> {
          conversation.clearView();
          converted.forEach(session::append);
          keepSystem(latestSystem);
        });
  }

  @Override
  public void set(ChatMessage... messages) {
    set(List.of(messages));
  }

  /**
   * Empties the active view and forgets the system message. The log keeps every message, so what
   * was cleared stays recoverable by id.
   */
  @Override
  public void clear() {
    locked(
        () -> {
          conversation.clearView();
          keepSystem(null);
        });
  }

  /** The original messages behind an id of a view (a stub, a checkpoint, a message). */
  public List<ChatMessage> recover(MessageId messageId) {
    return locked(
        () -> session.recover(messageId).stream().map(LangChain4jMessages::toLangChain4j).toList());
  }

  /**
   * Every message ever added (but system messages), oldest first: the master log, without the
   * UI-only notes compaction writes into it.
   */
  public List<ChatMessage> history() {
    return locked(
        () -> conversation.history().stream().map(LangChain4jMessages::toLangChain4j).toList());
  }

  /** The context size of the active view as the policy measures it. */
  public long tokens() {
    return locked(() -> session.tokens());
  }

  /** What the policy did after the last message, or null before the first. */
  public CompactionOutcome lastOutcome() {
    return locked(() -> lastOutcome);
  }

  /** The session underneath: the conversation, its views and journal. */
  public Compactor.Session session() {
    return session;
  }

  /** Releases the conversation directory (when there is one). Idempotent. */
  @Override
  public void close() {
    try {
      conversation.close();
    } catch (Exception e) {
      throw new IllegalStateException("closing the conversation of memory " + id, e);
    }
  }

  /** Builder of {@link CompactingChatMemory}. */
  public static final class Builder {
    private Object id = "default";
    private Compactor compactor;
    private Path directory;
    private ConversationStore store;

    private Builder() {}

    /** The memory id (default {@code "default"}). */
    public Builder id(Object id) {
      this.id = Objects.requireNonNull(id, "id");
      return this;
    }

    /**
     * The compactor: model, budget, summarizer, strategy. {@code
     * Compactor.forModel(...).reminder(false)} keeps the 90 % reminder out of the conversation.
     */
    public Builder compactor(Compactor compactor) {
      this.compactor = Objects.requireNonNull(compactor, "compactor");
      return this;
    }

    /** Keep the conversation in this directory (created when missing), not in memory. */
    public Builder directory(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /**
     * Keep the conversation in a SQLite or PostgreSQL store, under this memory's id (the store
     * stays the caller's to close). A memory built later on the same store and id continues it.
     */
    public Builder store(ConversationStore store) {
      this.store = Objects.requireNonNull(store, "store");
      return this;
    }

    public CompactingChatMemory build() {
      if (compactor == null) {
        throw new IllegalStateException(
            "a compacting memory needs a compactor: .compactor(Compactor.forModel(\"openai/gpt-4o\")"
                + ".budget(\"0.5\").build())");
      }
      return new CompactingChatMemory(this);
    }
  }
}
