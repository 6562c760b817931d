package dev.compactor.testkit;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.mask.MaskProvider;
import java.util.Map;

/**
 * {@code mask} keeping no output, in batches of one, masking even tiny outputs, with a protected
 * head: reaches the pending-call, pinned and head rules on every conversation.
 */
class AggressiveMaskProviderContractTest extends ContextProviderContract {
  @Override
  protected ContextProvider provider() {
    return new MaskProvider();
  }

  @Override
  protected CompressionConfig config(Integer limit) {
    return CompressionConfig.builder()
        .limit(limit)
        .keepHead(3)
        .archive((source, content) -> "saved " + source.id() + " (" + content.length() + " chars)")
        .extraConfig(Map.of("keep_last", 0, "batch", 1, "min_tokens", 0))
        .build();
  }
}
