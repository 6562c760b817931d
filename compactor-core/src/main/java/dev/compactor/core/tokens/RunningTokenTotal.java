package dev.compactor.core.tokens;

import dev.compactor.core.message.Message;
import java.util.List;
import java.util.Objects;

/**
 * The token total of an append-only message list, kept up to date in O(new messages).
 *
 * <p>{@link #update} trusts the list to be append-only: it checks only that the list did not shrink
 * and that the last message it counted is still in its place (by reference), then counts the
 * messages after it. Any other list is recounted from scratch. For lists that may be edited use
 * {@link ContextMeter}, which checks every position. Not thread-safe.
 *
 * <pre>{@code
 * RunningTokenTotal total = new RunningTokenTotal(TokenCounters.o200k());
 * log.append(message);
 * long tokens = total.update(log.messages());
 * }</pre>
 */
public final class RunningTokenTotal {
  private final TokenCounter counter;
  private long sum;
  private int size;
  private int visible;
  private Message last;

  public RunningTokenTotal(TokenCounter counter) {
    this.counter = Objects.requireNonNull(counter, "counter");
  }

  /** Counts one more message; returns the new {@link #total()}. */
  public long add(Message message) {
    sum += counter.countMessage(message);
    if (!message.uiOnly()) {
      visible++;
    }
    size++;
    last = message;
    return total();
  }

  /**
   * Brings the total up to date with an append-only list (see the class comment); returns the new
   * {@link #total()}.
   */
  public long update(List<Message> messages) {
    int n = messages.size();
    if (n < size || (size > 0 && messages.get(size - 1) != last)) {
      reset();
    }
    for (int i = size; i < n; i++) {
      add(messages.get(i));
    }
    return total();
  }

  /** Messages counted so far (uiOnly ones included, at 0 tokens). */
  public int size() {
    return size;
  }

  /** The sum of the counted messages plus reply priming when any message counts. */
  public long total() {
    return visible > 0 ? sum + counter.overhead().replyPriming() : sum;
  }

  public void reset() {
    sum = 0;
    size = 0;
    visible = 0;
    last = null;
  }
}
