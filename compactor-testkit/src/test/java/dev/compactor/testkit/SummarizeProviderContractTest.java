package dev.compactor.testkit;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import java.util.Map;

/**
 * The registered built-in {@code summarize} strategy with the offline extractive summarizer, a
 * short kept tail (so every generated conversation is summarized, and the second compaction carries
 * the first checkpoint forward), one protected head message and instructions.
 */
class SummarizeProviderContractTest extends ContextProviderContract {
  @Override
  protected ContextProvider provider() {
    return ProviderRegistry.global().get(SummarizeProvider.NAME);
  }

  @Override
  protected CompressionConfig config(Integer limit) {
    return CompressionConfig.builder()
        .limit(limit)
        .keepHead(1)
        .extraConfig(
            Map.of(
                SummarizeProvider.KEEP_RECENT_TOKENS,
                400,
                SummarizeProvider.INSTRUCTIONS,
                "Keep the invoice numbers."))
        .build();
  }
}
