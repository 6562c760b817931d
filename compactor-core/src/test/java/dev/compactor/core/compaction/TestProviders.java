package dev.compactor.core.compaction;

import dev.compactor.core.message.Message;
import java.util.List;
import java.util.function.BiFunction;

/** Providers for tests that need one strategy to behave in a given way. */
public final class TestProviders {
  private TestProviders() {}

  /** A provider that always wants to compress; subclasses say how. */
  public abstract static class Eager implements ContextProvider {
    private final String name;

    /** A provider registered as {@code name}. */
    protected Eager(String name) {
      this.name = name;
    }

    @Override
    public final String name() {
      return name;
    }

    @Override
    public final boolean shouldCompress(List<Message> messages, CompressionConfig config) {
      return true;
    }
  }

  /** An {@link Eager} provider named {@code name} whose compression is {@code compress}. */
  public static ContextProvider eager(
      String name, BiFunction<List<Message>, CompressionConfig, CompactionResult> compress) {
    return new Eager(name) {
      @Override
      public CompactionResult compress(List<Message> messages, CompressionConfig config) {
        return compress.apply(messages, config);
      }
    };
  }
}
