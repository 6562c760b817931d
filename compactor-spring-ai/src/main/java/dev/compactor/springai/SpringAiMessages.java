package dev.compactor.springai;

import dev.compactor.chat.memory.ToolCallIds;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * Spring AI messages and Compactor messages, both ways. A {@link ToolResponseMessage} (all results
 * of one round) becomes one Compactor tool message per result, each paired with its call by id;
 * going back, consecutive tool messages become one {@code ToolResponseMessage} again. Text, tool
 * calls and tool names are kept; media and metadata are not (Compactor compacts text).
 */
public final class SpringAiMessages {
  private SpringAiMessages() {}

  /** Metadata key holding a tool result's tool name. */
  public static final String TOOL_NAME = "tool_name";

  /**
   * The Compactor messages for {@code messages}, in order.
   *
   * @throws IllegalArgumentException for a message type Compactor cannot hold, or a tool call or
   *     result without an id
   */
  public static List<Message> toCompactor(
      List<org.springframework.ai.chat.messages.Message> messages) {
    List<Message> out = new ArrayList<>();
    for (org.springframework.ai.chat.messages.Message m : messages) {
      Objects.requireNonNull(m, "message");
      if (m instanceof SystemMessage s) {
        out.add(Message.system(text(s.getText())));
      } else if (m instanceof UserMessage u) {
        out.add(Message.user(text(u.getText())));
      } else if (m instanceof AssistantMessage a) {
        if (a.hasToolCalls()) {
          List<ToolCall> calls = new ArrayList<>();
          for (AssistantMessage.ToolCall c : a.getToolCalls()) {
            calls.add(
                new ToolCall(
                    ToolCallIds.require(c.id(), c.name()),
                    c.name(),
                    c.arguments() == null || c.arguments().isBlank() ? "{}" : c.arguments()));
          }
          out.add(Message.assistant(text(a.getText()), calls));
        } else {
          out.add(Message.assistant(text(a.getText())));
        }
      } else if (m instanceof ToolResponseMessage t) {
        for (ToolResponseMessage.ToolResponse r : t.getResponses()) {
          out.add(
              Message.builder(Role.TOOL)
                  .toolCallId(ToolCallIds.require(r.id(), r.name()))
                  .content(text(r.responseData()))
                  .metadata(
                      new MessageMetadata(
                          null,
                          null,
                          null,
                          null,
                          r.name() == null ? Map.of() : Map.of(TOOL_NAME, r.name())))
                  .build());
        }
      } else {
        throw new IllegalArgumentException(
            "a "
                + m.getMessageType()
                + " message cannot be compacted (system, user, assistant"
                + " and tool response messages can)");
      }
    }
    return out;
  }

  /** The Spring AI messages for {@code messages}: consecutive tool results as one message. */
  public static List<org.springframework.ai.chat.messages.Message> toSpringAi(
      List<Message> messages) {
    List<org.springframework.ai.chat.messages.Message> out = new ArrayList<>();
    List<ToolResponseMessage.ToolResponse> round = new ArrayList<>();
    for (Message m : messages) {
      if (m.role() == Role.TOOL) {
        Object name = m.metadata().extra().get(TOOL_NAME);
        round.add(
            new ToolResponseMessage.ToolResponse(
                m.toolCallId(), name instanceof String s ? s : "", m.content()));
        continue;
      }
      flush(round, out);
      out.add(
          switch (m.role()) {
            case SYSTEM -> new SystemMessage(m.content());
            case USER -> new UserMessage(m.content());
            case ASSISTANT -> {
              List<AssistantMessage.ToolCall> calls = new ArrayList<>();
              for (ToolCall c : m.toolCalls()) {
                calls.add(
                    new AssistantMessage.ToolCall(c.id(), "function", c.name(), c.arguments()));
              }
              yield AssistantMessage.builder().content(m.content()).toolCalls(calls).build();
            }
            case TOOL -> throw new IllegalStateException("unreachable");
          });
    }
    flush(round, out);
    return out;
  }

  private static void flush(
      List<ToolResponseMessage.ToolResponse> round,
      List<org.springframework.ai.chat.messages.Message> out) {
    if (!round.isEmpty()) {
      out.add(ToolResponseMessage.builder().responses(List.copyOf(round)).build());
      round.clear();
    }
  }

  private static String text(String s) {
    return s == null ? "" : s;
  }
}
