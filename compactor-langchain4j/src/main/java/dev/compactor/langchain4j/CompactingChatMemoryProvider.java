package dev.compactor.langchain4j;

import dev.compactor.chat.memory.MemoryBuilder;
import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.Compactor;
import dev.compactor.log.store.ConversationNames;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One {@link CompactingChatMemory} per memory id, for {@code
 * AiServices.builder(...).chatMemoryProvider(provider)}. With {@link Builder#directory} every
 * memory keeps its conversation in a directory below it, named after the id; with {@link
 * Builder#store} in a SQLite or PostgreSQL {@link ConversationStore}, under the id. Either way a
 * restarted service continues its conversations; otherwise memories live in this process.
 *
 * <pre>{@code
 * CompactingChatMemoryProvider memories = CompactingChatMemoryProvider.builder()
 *     .compactor(id -> Compactor.forModel("openai/gpt-4o").budget("0.5").reminder(false).build())
 *     .directory(Path.of("/var/lib/app/conversations"))
 *     .build();
 * }</pre>
 *
 * Thread-safe.
 */
public final class CompactingChatMemoryProvider implements ChatMemoryProvider, AutoCloseable {
  private final Function<Object, Compactor> compactors;
  private final Path directory;
  private final ConversationStore store;
  private final Map<Object, CompactingChatMemory> memories = new ConcurrentHashMap<>();

  private CompactingChatMemoryProvider(
      Function<Object, Compactor> compactors, Path directory, ConversationStore store) {
    this.compactors = compactors;
    this.directory = directory;
    this.store = store;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public CompactingChatMemory get(Object memoryId) {
    Objects.requireNonNull(memoryId, "memoryId");
    return memories.computeIfAbsent(memoryId, this::open);
  }

  private CompactingChatMemory open(Object memoryId) {
    CompactingChatMemory.Builder b =
        CompactingChatMemory.builder().id(memoryId).compactor(compactors.apply(memoryId));
    if (directory != null) {
      b.directory(directory.resolve(directoryName(memoryId)));
    } else if (store != null) {
      b.store(store);
    }
    return b.build();
  }

  /** The directory name of a memory id (see {@link ConversationNames#of}). */
  static String directoryName(Object memoryId) {
    return ConversationNames.of(String.valueOf(memoryId));
  }

  /** Closes every memory's conversation. */
  @Override
  public void close() {
    memories.values().forEach(CompactingChatMemory::close);
    memories.clear();
  }

  /**
   * Builder of {@link CompactingChatMemoryProvider}: {@link #compactor} is required; {@link
   * #directory} or {@link #store} keeps each memory's conversation, under its memory id.
   */
  public static final class Builder extends MemoryBuilder<Object, Builder> {
    private Builder() {}

    @Override
    protected Builder self() {
      return this;
    }

    public CompactingChatMemoryProvider build() {
      return build("a memory provider", CompactingChatMemoryProvider::new);
    }
  }
}
