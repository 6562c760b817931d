package dev.compactor.bench.replay;

import dev.compactor.core.message.Message;
import dev.compactor.replay.NamedReplayStrategy;
import dev.compactor.replay.ReplaySession;
import dev.compactor.replay.ReplaySetup;
import dev.compactor.replay.ReplayStrategies;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.TokenWindowChatMemory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code window}: the peer a Java developer would pick today, LangChain4j's {@link
 * TokenWindowChatMemory} (langchain4j 1.x from Maven Central), with its window set to the replay's
 * context budget and its {@link dev.langchain4j.model.TokenCountEstimator} answered by the replay's
 * counter, so that both sides count the same tokens.
 *
 * <p>Each recorded message is converted the way an application would hand it to LangChain4j (system
 * → {@link SystemMessage}, user → {@link UserMessage}, assistant → {@link AiMessage} with its tool
 * calls and thinking, tool result → {@link ToolExecutionResultMessage}) and {@linkplain
 * TokenWindowChatMemory#add added}; the memory evicts whole messages from the front, an assistant
 * message's tool results with it, and keeps one system message. The view sent is {@link
 * TokenWindowChatMemory#messages()}, mapped back to the recorded messages. LangChain4j's own
 * behaviour is kept as it is, including that a second, different system message replaces the first
 * and moves to the end, and that an empty text becomes a single space (LangChain4j rejects blank
 * system messages).
 *
 * <p>The memory evicts when a message is added; the replay adds the turn's messages in {@link
 * ReplaySession#afterTurn()}, so that eviction counts as compaction time. Every eviction that
 * changes the view counts as one compaction.
 */
public final class TokenWindowStrategy extends NamedReplayStrategy {
  /** The registered name. */
  public static final String NAME = ReplayStrategies.WINDOW;

  /** The {@link java.util.ServiceLoader} constructor. */
  public TokenWindowStrategy() {
    super(
        NAME,
        "LangChain4j TokenWindowChatMemory (peer): a sliding window of whole messages, sized to"
            + " the budget");
  }

  @Override
  public ReplaySession start(ReplaySetup setup) {
    Map<ChatMessage, Message> origin = new IdentityHashMap<>();
    TokenWindowChatMemory memory =
        TokenWindowChatMemory.builder()
            .maxTokens(
                (int) Math.min(Integer.MAX_VALUE, setup.budgetTokens()),
                new CounterTokenCountEstimator(setup.counter(), origin))
            .build();
    return new ReplaySession() {
      private final RecordedMessages toChat = new RecordedMessages();
      private final List<ChatMessage> pending = new ArrayList<>();
      private List<Message> view = List.of();
      private int added;

      @Override
      public void append(Message recorded) {
        if (recorded.uiOnly()) {
          return;
        }
        ChatMessage c = toChat.apply(recorded);
        origin.put(c, recorded);
        pending.add(c);
      }

      @Override
      public void afterTurn() {
        if (pending.isEmpty()) {
          return;
        }
        for (ChatMessage c : pending) {
          memory.add(c);
        }
        added += pending.size();
        pending.clear();
        List<ChatMessage> kept = memory.messages();
        List<Message> next = new ArrayList<>(kept.size());
        for (ChatMessage c : kept) {
          next.add(origin.get(c));
        }
        if (next.size() < added && !startsWith(next, view)) {
          setup
              .events()
              .compacted(
                  NAME, setup.counter().countMessages(view), setup.counter().countMessages(next));
        }
        view = next;
      }

      @Override
      public List<Message> view() {
        afterTurn();
        return view;
      }
    };
  }

  /**
   * Whether {@code next} keeps every message of {@code previous} (nothing evicted since): then its
   * first messages are {@code previous}'s.
   */
  private static boolean startsWith(List<Message> next, List<Message> previous) {
    if (next.size() < previous.size()) {
      return false;
    }
    for (int i = 0; i < previous.size(); i++) {
      if (next.get(i) != previous.get(i)) {
        return false;
      }
    }
    return true;
  }
}
