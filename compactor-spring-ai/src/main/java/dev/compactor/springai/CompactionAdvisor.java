package dev.compactor.springai;

import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.CompactionOutcome;
import java.util.List;
import java.util.Objects;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.core.Ordered;

/**
 * Compacts the prompt's messages before the call (call and stream) with Compactor's default policy:
 * nothing below the budget; at the budget masking, trim, then a summary; never while the last
 * assistant message's tool calls await results. What it did is put in the request and response
 * context under {@value #OUTCOME} (a {@link CompactionOutcome}).
 *
 * <p>Its default order, {@link #DEFAULT_ORDER}, runs it after the memory advisors (which add the
 * history) and, with {@code ToolCallAdvisor} ahead of it, inside the tool loop, so that it sees
 * tool calls and tool responses.
 */
public final class CompactionAdvisor implements BaseAdvisor {
  /** Context key of what the advisor did. */
  public static final String OUTCOME = "compactor.outcome";

  /** After Spring AI's memory advisors ({@code HIGHEST_PRECEDENCE + 1000} in 1.1). */
  public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 1500;

  private final Compactor compactor;
  private final int order;

  private CompactionAdvisor(Compactor compactor, int order) {
    this.compactor = Objects.requireNonNull(compactor, "compactor");
    this.order = order;
  }

  /** An advisor at {@link #DEFAULT_ORDER}. */
  public static CompactionAdvisor of(Compactor compactor) {
    return new CompactionAdvisor(compactor, DEFAULT_ORDER);
  }

  /** An advisor at another order. */
  public static CompactionAdvisor of(Compactor compactor, int order) {
    return new CompactionAdvisor(compactor, order);
  }

  @Override
  public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
    Prompt prompt = request.prompt();
    List<Message> messages = SpringAiMessages.toCompactor(prompt.getInstructions());
    Compactor.Result r = compactor.compact(messages);
    if (!r.compacted()) {
      return request.mutate().context(OUTCOME, r.outcome()).build();
    }
    Prompt compacted = prompt.mutate().messages(SpringAiMessages.toSpringAi(r.messages())).build();
    return request.mutate().prompt(compacted).context(OUTCOME, r.outcome()).build();
  }

  @Override
  public ChatClientResponse after(ChatClientResponse response, AdvisorChain chain) {
    return response;
  }

  @Override
  public int getOrder() {
    return order;
  }

  @Override
  public String getName() {
    return "CompactionAdvisor";
  }
}
