package dev.compactor.chat.memory;

import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.Compactor;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Function;

/**
 * What the builder of a framework memory over many conversations takes: the compactor of each
 * conversation, and where the conversations are kept — in directories below one ({@link
 * #directory}), in a {@link ConversationStore} ({@link #store}), or, with neither, in this process.
 *
 * @param <K> the type of a conversation's id
 * @param <B> the builder itself
 */
public abstract class MemoryBuilder<K, B extends MemoryBuilder<K, B>> {
  private Function<K, Compactor> compactors;
  private Path directory;
  private ConversationStore store;

  protected MemoryBuilder() {}

  /** This builder, as its own type. */
  protected abstract B self();

  /** One compactor for every conversation (compactors are thread-safe and may be shared). */
  public B compactor(Compactor compactor) {
    Objects.requireNonNull(compactor, "compactor");
    this.compactors = id -> compactor;
    return self();
  }

  /** A compactor per conversation id (e.g. a different budget per user). */
  public B compactor(Function<K, Compactor> compactorForId) {
    this.compactors = Objects.requireNonNull(compactorForId, "compactorForId");
    return self();
  }

  /** Keep each conversation in a directory below this one, named after its id. */
  public B directory(Path directory) {
    this.directory = Objects.requireNonNull(directory, "directory");
    return self();
  }

  /**
   * Keep each conversation in a SQLite or PostgreSQL store, under its id ({@code
   * String.valueOf(id)}); the store stays the caller's to close.
   */
  public B store(ConversationStore store) {
    this.store = Objects.requireNonNull(store, "store");
    return self();
  }

  /** What makes a memory of the builder's settings (the directory or the store may be null). */
  @FunctionalInterface
  protected interface Memory<K, M> {
    M make(Function<K, Compactor> compactors, Path directory, ConversationStore store);
  }

  /**
   * The memory {@code memory} makes of these settings.
   *
   * @param what the memory, for the errors (e.g. {@code "a memory provider"})
   * @throws IllegalStateException without a compactor, or with both a directory and a store
   */
  protected <M> M build(String what, Memory<K, M> memory) {
    if (compactors == null) {
      throw new IllegalStateException(
          what
              + " needs .compactor(...), e.g."
              + " .compactor(Compactor.forModel(\"openai/gpt-4o\").build())");
    }
    if (directory != null && store != null) {
      throw new IllegalStateException(what + " takes a directory or a store, not both");
    }
    return memory.make(compactors, directory, store);
  }
}
