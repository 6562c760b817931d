package dev.compactor.springai;

import dev.compactor.core.message.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.AdvisorChain;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.core.Ordered;

/**
 * A memory advisor for a {@link CompactingChatMemory} that also works inside the tool loop: with
 * {@code ToolCallAdvisor} ahead of it, every round's tool call and tool response reach the memory,
 * which compacts them like any other message, and every request is the system message plus the
 * memory's compacted view.
 *
 * <p>Spring AI 1.1's {@code MessageChatMemoryAdvisor} adds the memory to the prompt's messages and
 * stores only the last user message, so inside a tool loop it repeats the user message and the
 * earlier tool call, which providers refuse (a call without its result). This advisor stores what
 * the memory has not seen yet: the prompt's messages after the last one the memory holds, then the
 * answer.
 *
 * <p>The conversation id comes from the request context ({@link ChatMemory#CONVERSATION_ID}), else
 * {@value #DEFAULT_CONVERSATION}.
 */
public final class CompactingMemoryAdvisor implements BaseAdvisor {
  /** The conversation of requests that name none. */
  public static final String DEFAULT_CONVERSATION = "default";

  /** Where Spring AI 1.1 puts its memory advisors. */
  public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

  private final CompactingChatMemory memory;
  private final int order;

  private CompactingMemoryAdvisor(CompactingChatMemory memory, int order) {
    this.memory = Objects.requireNonNull(memory, "memory");
    this.order = order;
  }

  public static CompactingMemoryAdvisor of(CompactingChatMemory memory) {
    return new CompactingMemoryAdvisor(memory, DEFAULT_ORDER);
  }

  public static CompactingMemoryAdvisor of(CompactingChatMemory memory, int order) {
    return new CompactingMemoryAdvisor(memory, order);
  }

  private static String conversation(java.util.Map<String, Object> context) {
    Object id = context.get(ChatMemory.CONVERSATION_ID);
    return id == null ? DEFAULT_CONVERSATION : id.toString();
  }

  @Override
  public ChatClientRequest before(ChatClientRequest request, AdvisorChain chain) {
    String id = conversation(request.context());
    List<org.springframework.ai.chat.messages.Message> prompt = request.prompt().getInstructions();
    List<org.springframework.ai.chat.messages.Message> fresh = unseen(id, prompt);
    memory.add(id, fresh);
    Prompt next = request.prompt().mutate().messages(memory.get(id)).build();
    return request.mutate().prompt(next).build();
  }

  /** The prompt's messages after the last one the memory already holds (system messages too). */
  private List<org.springframework.ai.chat.messages.Message> unseen(
      String id, List<org.springframework.ai.chat.messages.Message> prompt) {
    List<Message> held = memory.session(id).conversation().master().messages();
    List<Message> visible = held.stream().filter(m -> !m.uiOnly()).toList();
    List<org.springframework.ai.chat.messages.Message> out = new ArrayList<>();
    if (visible.isEmpty()) {
      return prompt;
    }
    Message last = visible.get(visible.size() - 1);
    int from = 0;
    for (int i = prompt.size() - 1; i >= 0; i--) {
      org.springframework.ai.chat.messages.Message p = prompt.get(i);
      if (p instanceof SystemMessage) {
        continue;
      }
      List<Message> converted = SpringAiMessages.toCompactor(List.of(p));
      Message tail = converted.get(converted.size() - 1);
      if (same(tail, last)) {
        from = i + 1;
        break;
      }
    }
    for (int i = 0; i < prompt.size(); i++) {
      if (i >= from || prompt.get(i) instanceof SystemMessage) {
        out.add(prompt.get(i));
      }
    }
    return out;
  }

  private static boolean same(Message a, Message b) {
    return a.role() == b.role()
        && a.content().equals(b.content())
        && a.toolCalls().equals(b.toolCalls())
        && Objects.equals(a.toolCallId(), b.toolCallId());
  }

  @Override
  public ChatClientResponse after(ChatClientResponse response, AdvisorChain chain) {
    if (response.chatResponse() != null && response.chatResponse().getResult() != null) {
      AssistantMessage out = response.chatResponse().getResult().getOutput();
      if (out != null) {
        memory.add(conversation(response.context()), List.of(out));
      }
    }
    return response;
  }

  @Override
  public int getOrder() {
    return order;
  }

  @Override
  public String getName() {
    return "CompactingMemoryAdvisor";
  }
}
