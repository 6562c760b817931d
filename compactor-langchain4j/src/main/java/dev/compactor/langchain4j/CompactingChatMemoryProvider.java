package dev.compactor.langchain4j;

import dev.compactor.core.Compactor;
import dev.langchain4j.memory.chat.ChatMemoryProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One {@link CompactingChatMemory} per memory id, for {@code
 * AiServices.builder(...).chatMemoryProvider(provider)}. With {@link Builder#directory} every
 * memory keeps its conversation in a directory below it, named after the id, so a restarted service
 * continues its conversations; otherwise memories live in this process.
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
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  private final Function<Object, Compactor> compactors;
  private final Path directory;
  private final Map<Object, CompactingChatMemory> memories = new ConcurrentHashMap<>();

  private CompactingChatMemoryProvider(Builder b) {
    this.compactors = Objects.requireNonNull(b.compactors, "compactor");
    this.directory = b.directory;
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
    }
    return b.build();
  }

  /**
   * The directory name of a memory id: the id itself when it is plain ({@code [A-Za-z0-9._-]}, at
   * most 100 characters, not starting with a dot), else {@code id-} and its UTF-8 bytes in hex
   * (never a path outside the directory, whatever the id holds).
   */
  static String directoryName(Object memoryId) {
    String s = String.valueOf(memoryId);
    if (PLAIN.matcher(s).matches() && !s.startsWith(".")) {
      return s;
    }
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    String hex = HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 100));
    return "id-" + hex + (bytes.length > 100 ? "-" + Integer.toHexString(s.hashCode()) : "");
  }

  /** Closes every memory's conversation. */
  @Override
  public void close() {
    memories.values().forEach(CompactingChatMemory::close);
    memories.clear();
  }

  /** Builder of {@link CompactingChatMemoryProvider}. */
  public static final class Builder {
    private Function<Object, Compactor> compactors;
    private Path directory;

    private Builder() {}

    /** One compactor for every memory (compactors are thread-safe and may be shared). */
    public Builder compactor(Compactor compactor) {
      Objects.requireNonNull(compactor, "compactor");
      this.compactors = id -> compactor;
      return this;
    }

    /** A compactor per memory id (e.g. a different budget per user). */
    public Builder compactor(Function<Object, Compactor> compactorForId) {
      this.compactors = Objects.requireNonNull(compactorForId, "compactorForId");
      return this;
    }

    /** Keep each memory's conversation in a directory below this one. */
    public Builder directory(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    public CompactingChatMemoryProvider build() {
      if (compactors == null) {
        throw new IllegalStateException("a memory provider needs .compactor(...)");
      }
      return new CompactingChatMemoryProvider(this);
    }
  }
}
