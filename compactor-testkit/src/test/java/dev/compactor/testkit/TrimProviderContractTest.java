package dev.compactor.testkit;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.trim.TrimProvider;

/**
 * The registered built-in {@code trim} strategy (the default) as the automatic policy runs it:
 * target 70 % of the limit, two protected head messages, small tool-result limit (so truncation
 * happens on ordinary outputs), and an archive whose reference names the source.
 */
class TrimProviderContractTest extends ContextProviderContract {
  @Override
  protected ContextProvider provider() {
    return ProviderRegistry.global().get(TrimProvider.NAME);
  }

  @Override
  protected CompressionConfig config(Integer limit) {
    return CompressionConfig.builder()
        .limit(limit)
        .keepHead(2)
        .trimTargetRatio(0.7)
        .maxToolResultTokens(300)
        .archive((source, content) -> "saved " + source.id() + " (" + content.length() + " chars)")
        .build();
  }
}
