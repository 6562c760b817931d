package dev.compactor.replay;

import dev.compactor.core.Bounds;
import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import java.time.Clock;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link ReplayStrategy} is told about one replayed conversation.
 *
 * @param model the model the calls go to ({@code provider/model}); picks prices and catalog data
 * @param counter how tokens are counted: the same counter measures every strategy's calls
 * @param budgetTokens the context budget compaction keeps the view under, &gt; 0
 * @param window the model's context window, &ge; budgetTokens
 * @param maxOutput output tokens reserved per call, &ge; 0
 * @param clock replay time: the timestamp of the newest recorded message (so that messages a
 *     strategy adds keep timestamps in order)
 * @param events where the session reports compactions, reminders and summary calls
 * @param recorded the conversation's recorded messages, in order (what the replay will append), or
 *     empty when not given. Only for a strategy that stands between the calls and a stand-in of the
 *     provider that must answer each call as recorded (the replay through the proxy); a compaction
 *     policy must not look ahead
 */
public record ReplaySetup(
    String model,
    TokenCounter counter,
    long budgetTokens,
    long window,
    int maxOutput,
    Clock clock,
    ReplayEvents events,
    List<Message> recorded) {
  public ReplaySetup {
    recorded = List.copyOf(Objects.requireNonNull(recorded, "recorded"));
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(counter, "counter");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(events, "events");
    Bounds.atLeast(1, budgetTokens, "budgetTokens");
    if (window < budgetTokens) {
      throw new IllegalArgumentException(
          "window " + window + " must be >= the budget " + budgetTokens);
    }
    Bounds.atLeast(0, maxOutput, "maxOutput");
  }
}
