package dev.compactor.testkit;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.message.Message;
import java.util.List;

/** A test provider that compresses only when the messages are over the configured limit. */
abstract class OverLimitProvider implements ContextProvider {
  private final String name;

  OverLimitProvider(String name) {
    this.name = name;
  }

  @Override
  public final boolean shouldCompress(List<Message> messages, CompressionConfig config) {
    return config.limit() != null && config.counter().countMessages(messages) > config.limit();
  }

  @Override
  public final String name() {
    return name;
  }
}
