package dev.compactor.bench.replay;

import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.Map;

/**
 * LangChain4j's {@link TokenCountEstimator} answered by one of our {@link TokenCounter}s, so that
 * the peer's window and our budget are measured in the same tokens. Each LangChain4j message is
 * mapped back to the Compactor message it was made from and counted exactly as the replay counts it
 * (content, reasoning, tool calls, per-message overhead; reply priming once per list).
 */
final class CounterTokenCountEstimator implements TokenCountEstimator {
  private final TokenCounter counter;
  private final Map<ChatMessage, Message> origin;

  /**
   * @param counter the replay's counter
   * @param origin the Compactor message behind each LangChain4j message (an identity map)
   */
  CounterTokenCountEstimator(TokenCounter counter, Map<ChatMessage, Message> origin) {
    this.counter = counter;
    this.origin = origin;
  }

  @Override
  public int estimateTokenCountInText(String text) {
    return counter.countText(text);
  }

  @Override
  public int estimateTokenCountInMessage(ChatMessage message) {
    Message m = origin.get(message);
    if (m == null) {
      throw new IllegalStateException("a message the replay did not add: " + message.type());
    }
    return counter.countMessage(m);
  }

  @Override
  public int estimateTokenCountInMessages(Iterable<ChatMessage> messages) {
    long total = 0;
    boolean any = false;
    for (ChatMessage m : messages) {
      total += estimateTokenCountInMessage(m);
      any = true;
    }
    return (int) Math.min(Integer.MAX_VALUE, any ? total + counter.overhead().replyPriming() : 0);
  }
}
