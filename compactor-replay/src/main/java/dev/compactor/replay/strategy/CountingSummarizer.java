package dev.compactor.replay.strategy;

import dev.compactor.core.compaction.summary.Checkpoint;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.replay.ReplayEvents;
import java.util.List;

/**
 * Reports every summary to the replay's events with the tokens a model-backed summarizer would be
 * sent (the covered messages, the earlier checkpoint, the instructions) and would return (the
 * rendered checkpoint), then hands the checkpoint back unchanged.
 */
public final class CountingSummarizer implements Summarizer {
  private final Summarizer delegate;
  private final TokenCounter counter;
  private final ReplayEvents events;

  /**
   * Counts the summaries of {@code delegate} into {@code events}, measured with {@code counter}.
   */
  public CountingSummarizer(Summarizer delegate, TokenCounter counter, ReplayEvents events) {
    this.delegate = delegate;
    this.counter = counter;
    this.events = events;
  }

  @Override
  public Checkpoint summarize(List<Message> covered, Checkpoint previous, String instructions) {
    Checkpoint c = delegate.summarize(covered, previous, instructions);
    long in = counter.countMessages(covered);
    if (previous != null) {
      in += counter.countText(previous.render());
    }
    if (instructions != null) {
      in += counter.countText(instructions);
    }
    events.summaryCall(in, counter.countText(c.render()));
    return c;
  }

  @Override
  public String name() {
    return delegate.name();
  }
}
