package dev.compactor.langchain4j;

import dev.compactor.core.message.Message;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.TokenCountEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A LangChain4j {@link TokenCountEstimator} backed by Compactor's counters: the provider's own
 * tokenizer for OpenAI models (jtokkit), a calibrated estimate for others, with per-message
 * overheads as the providers bill them.
 */
public final class CompactorTokenCountEstimator implements TokenCountEstimator {
  private final TokenCounter counter;

  private CompactorTokenCountEstimator(TokenCounter counter) {
    this.counter = Objects.requireNonNull(counter, "counter");
  }

  /** The estimator for {@code provider/model}, e.g. {@code openai/gpt-4o}. */
  public static CompactorTokenCountEstimator forModel(String model) {
    return new CompactorTokenCountEstimator(TokenCounters.forModel(model));
  }

  /** An estimator over a counter. */
  public static CompactorTokenCountEstimator of(TokenCounter counter) {
    return new CompactorTokenCountEstimator(counter);
  }

  @Override
  public int estimateTokenCountInText(String text) {
    return counter.countText(text == null ? "" : text);
  }

  @Override
  public int estimateTokenCountInMessage(ChatMessage message) {
    return counter.countMessage(LangChain4jMessages.toCompactor(message));
  }

  @Override
  public int estimateTokenCountInMessages(Iterable<ChatMessage> messages) {
    List<Message> all = new ArrayList<>();
    messages.forEach(m -> all.add(LangChain4jMessages.toCompactor(m)));
    return Math.toIntExact(Math.min(Integer.MAX_VALUE, counter.countMessages(all)));
  }
}
