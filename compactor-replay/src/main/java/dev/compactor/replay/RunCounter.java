package dev.compactor.replay;

import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.MessageOverhead;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenizerFamily;
import java.util.IdentityHashMap;
import java.util.Map;

/*
 * Design: the shared counters cache message counts in a synchronized WeakHashMap keyed by the
 * message's value (a full record hash per lookup). A replay looks up every message of every view at
 * every call, on several threads at once, so that lock and that hash would dominate the run. This
 * counter is confined to one replay (one thread) and remembers counts by identity first; the
 * delegate is asked once per distinct message. It gives exactly the delegate's counts.
 */
final class RunCounter implements TokenCounter {
  private final TokenCounter delegate;
  private final Map<Message, Integer> counts = new IdentityHashMap<>();

  RunCounter(TokenCounter delegate) {
    this.delegate = delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public TokenizerFamily family() {
    return delegate.family();
  }

  @Override
  public MessageOverhead overhead() {
    return delegate.overhead();
  }

  @Override
  public int countText(String text) {
    return delegate.countText(text);
  }

  @Override
  public int countMessage(Message message) {
    Integer n = counts.get(message);
    if (n == null) {
      n = delegate.countMessage(message);
      counts.put(message, n);
    }
    return n;
  }
}
