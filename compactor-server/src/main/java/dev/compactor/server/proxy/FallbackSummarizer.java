package dev.compactor.server.proxy;

import dev.compactor.core.compaction.summary.Checkpoint;
import dev.compactor.core.compaction.summary.ExtractiveSummarizer;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.message.Message;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * A configured summary model ({@code summary_model}) with the offline extractive summarizer behind
 * it: when the model cannot be created or its call fails (an error, no checkpoint in its answer),
 * the extractive summarizer writes the summary, so a summary model never fails a request, and the
 * failure is kept for the request that caused it ({@link #takeFailure()}, read on the same thread
 * that compacted). Thread-safe.
 */
final class FallbackSummarizer implements Summarizer {
  private final String model;
  private final Supplier<Summarizer> primary;
  private final Summarizer fallback = new ExtractiveSummarizer();
  private final ThreadLocal<String> failure = new ThreadLocal<>();
  private volatile Summarizer made;

  /**
   * @param model the summary model's name, for the failure's text
   * @param primary makes the model's summarizer (called once, on the first summary; may throw)
   */
  FallbackSummarizer(String model, Supplier<Summarizer> primary) {
    this.model = Objects.requireNonNull(model, "model");
    this.primary = Objects.requireNonNull(primary, "primary");
  }

  @Override
  public Checkpoint summarize(List<Message> covered, Checkpoint previous, String instructions) {
    try {
      Summarizer s = made;
      if (s == null) {
        s = primary.get();
        made = s;
      }
      return s.summarize(covered, previous, instructions);
    } catch (RuntimeException e) {
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      failure.set(
          "summary model "
              + model
              + " failed ("
              + (why.length() > 120 ? why.substring(0, 120) + "…" : why)
              + "); the extractive summary was used");
      return fallback.summarize(covered, previous, instructions);
    }
  }

  /** The failure of this thread's last summary, once, or null. */
  String takeFailure() {
    String f = failure.get();
    failure.remove();
    return f;
  }

  @Override
  public String name() {
    return model;
  }
}
