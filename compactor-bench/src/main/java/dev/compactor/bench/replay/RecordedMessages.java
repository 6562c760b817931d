package dev.compactor.bench.replay;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.ToolCall;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A recorded message as an application hands it to LangChain4j: system → {@link SystemMessage},
 * user → {@link UserMessage}, assistant → {@link AiMessage} with its tool calls and thinking, tool
 * result → {@link ToolExecutionResultMessage} named after its call. An empty text becomes a single
 * space (LangChain4j rejects blank system and user messages). One instance per conversation: it
 * remembers the tool names of the calls it has seen.
 */
final class RecordedMessages implements Function<Message, ChatMessage> {
  private final Map<String, String> toolNames = new HashMap<>();

  @Override
  public ChatMessage apply(Message m) {
    String text = m.content().isBlank() ? " " : m.content();
    return switch (m.role()) {
      case SYSTEM -> SystemMessage.from(text);
      case USER -> UserMessage.from(text);
      case ASSISTANT -> {
        AiMessage.Builder b = AiMessage.builder();
        if (!m.content().isEmpty()) {
          b.text(m.content());
        }
        if (!m.reasoning().isEmpty()) {
          b.thinking(
              m.reasoning().stream().map(ReasoningBlock::text).collect(Collectors.joining("\n")));
        }
        if (m.hasToolCalls()) {
          List<ToolExecutionRequest> calls = new ArrayList<>();
          for (ToolCall c : m.toolCalls()) {
            toolNames.put(c.id(), c.name());
            calls.add(
                ToolExecutionRequest.builder()
                    .id(c.id())
                    .name(c.name())
                    .arguments(c.arguments())
                    .build());
          }
          b.toolExecutionRequests(calls);
        }
        yield b.build();
      }
      case TOOL ->
          ToolExecutionResultMessage.from(
              m.toolCallId(), toolNames.getOrDefault(m.toolCallId(), "tool"), m.content());
    };
  }
}
