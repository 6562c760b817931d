package dev.compactor.springai;

import dev.compactor.core.Compactor;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.InputFingerprints;
import dev.compactor.core.policy.CompactionOutcome;
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
import org.springframework.ai.chat.model.ChatResponse;
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
 * <p><b>The usage anchor.</b> The answer is stored with the usage the provider reported for the
 * request (Spring AI's prompt and completion tokens) and the fingerprint of the view it answered,
 * so the next measurement starts from the provider's own count of that request (system prompt and
 * tool schemas included) plus estimates of what came after, as long as the view is unchanged.
 *
 * <p><b>What it did.</b> The request and the response context hold, under {@value #OUTCOME}, what
 * the policy did when the request's new messages were stored (the {@link CompactionOutcome} that
 * shaped this request), and the response context, under {@value #AFTER_RESPONSE}, what it did when
 * the answer was stored (which shapes the next request).
 *
 * <p>The conversation id comes from the request context ({@link ChatMemory#CONVERSATION_ID}), else
 * {@value #DEFAULT_CONVERSATION}.
 */
public final class CompactingMemoryAdvisor implements BaseAdvisor {
  /** The conversation of requests that name none. */
  public static final String DEFAULT_CONVERSATION = "default";

  /** Context key of what the policy did before the request ({@link CompactionOutcome}). */
  public static final String OUTCOME = CompactionAdvisor.OUTCOME;

  /** Response context key of what the policy did once the answer was stored. */
  public static final String AFTER_RESPONSE = "compactor.outcome.afterResponse";

  /** Request context key of the fingerprint of the view the request carries. */
  static final String INPUT = "compactor.input";

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
    Compactor.Session session = memory.session(id);
    InputFingerprint input =
        InputFingerprints.of(session.conversation().activeMessages(), session.compactor().model());
    List<org.springframework.ai.chat.messages.Message> view = memory.get(id);
    Prompt next = request.prompt().mutate().messages(view).build();
    ChatClientRequest.Builder out = request.mutate().prompt(next).context(INPUT, input);
    CompactionOutcome o = memory.lastOutcome(id);
    if (o != null) {
      out.context(OUTCOME, o);
    }
    return out.build();
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
    ChatResponse r = response.chatResponse();
    if (r == null || r.getResult() == null || r.getResult().getOutput() == null) {
      return response;
    }
    AssistantMessage answer = r.getResult().getOutput();
    String id = conversation(response.context());
    Message stored = SpringAiMessages.toCompactor(List.of(answer)).get(0);
    Usage usage = usage(r);
    Object input = response.context().get(INPUT);
    if (usage != null && input instanceof InputFingerprint f) {
      stored =
          stored.toBuilder()
              .metadata(stored.metadata().withUsage(usage).withInput(f).withModel(f.model()))
              .build();
    }
    CompactionOutcome o = memory.addNative(id, stored);
    ChatClientResponse.Builder out = response.mutate().context(AFTER_RESPONSE, o);
    Object before = response.context().get(OUTCOME);
    if (before != null) {
      out.context(OUTCOME, before);
    }
    return out.build();
  }

  /** The provider's usage of the call, or null when it reported none. */
  private static Usage usage(ChatResponse r) {
    if (r.getMetadata() == null || r.getMetadata().getUsage() == null) {
      return null;
    }
    org.springframework.ai.chat.metadata.Usage u = r.getMetadata().getUsage();
    long prompt = u.getPromptTokens() == null ? 0 : u.getPromptTokens();
    long completion = u.getCompletionTokens() == null ? 0 : u.getCompletionTokens();
    return prompt > 0 ? new Usage(prompt, completion, 0, 0, 0) : null;
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
