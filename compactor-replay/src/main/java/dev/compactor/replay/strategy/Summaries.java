package dev.compactor.replay.strategy;

import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.replay.ReplaySetup;

/** The summarize strategy a replay session uses: the registry's, with its summaries counted. */
final class Summaries {
  private Summaries() {}

  /**
   * A {@link SummarizeProvider} over the summarizer of the registry's {@code summarize} strategy
   * (the offline extractive one unless a model-backed one is registered), counting each summary. A
   * {@code summarize} plugin of another kind is used as it is, uncounted.
   */
  static ContextProvider counted(ReplaySetup setup) {
    ContextProvider registered = ProviderRegistry.global().get(SummarizeProvider.NAME);
    if (!(registered instanceof SummarizeProvider s)) {
      return registered;
    }
    Summarizer base = s.summarizer();
    return new SummarizeProvider(new CountingSummarizer(base, setup.counter(), setup.events()));
  }
}
