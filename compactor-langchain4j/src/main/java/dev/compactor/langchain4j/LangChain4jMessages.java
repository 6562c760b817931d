package dev.compactor.langchain4j;

import dev.compactor.chat.memory.ToolCallIds;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ChatMessageDeserializer;
import dev.langchain4j.data.message.ChatMessageSerializer;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * LangChain4j messages and Compactor messages, both ways.
 *
 * <p>A LangChain4j message becomes a Compactor message with the same role, text and tool calls; its
 * own JSON ({@link ChatMessageSerializer}) rides along in the metadata ({@value #ORIGINAL}), so
 * what Compactor does not model (a user's name, images, attributes) is kept. Going back, a message
 * whose text and tool calls are still those of its original comes back as the original, exactly; a
 * message compaction rewrote (a masked output, a stub, a checkpoint) is built from its Compactor
 * fields.
 */
public final class LangChain4jMessages {
  private LangChain4jMessages() {}

  /** The reasoning block type of an AI message's {@code thinking}. */
  public static final String THINKING = "thinking";

  /** Metadata key holding the LangChain4j JSON of the message a Compactor message came from. */
  public static final String ORIGINAL = "langchain4j";

  /**
   * The Compactor message for {@code m}.
   *
   * @throws IllegalArgumentException for a message type Compactor cannot hold (a custom message),
   *     or a tool request or result without an id
   */
  public static Message toCompactor(ChatMessage m) {
    Objects.requireNonNull(m, "message");
    Message.Builder b;
    if (m instanceof SystemMessage s) {
      b = Message.builder(Role.SYSTEM).content(s.text());
    } else if (m instanceof UserMessage u) {
      b = Message.builder(Role.USER).content(text(u));
    } else if (m instanceof AiMessage a) {
      b = Message.builder(Role.ASSISTANT).content(a.text() == null ? "" : a.text());
      if (a.thinking() != null && !a.thinking().isEmpty()) {
        b.reasoning(List.of(new ReasoningBlock(THINKING, a.thinking(), null)));
      }
      if (a.hasToolExecutionRequests()) {
        List<ToolCall> calls = new ArrayList<>();
        for (ToolExecutionRequest r : a.toolExecutionRequests()) {
          calls.add(new ToolCall(ToolCallIds.require(r.id(), r.name()), r.name(), arguments(r)));
        }
        b.toolCalls(calls);
      }
    } else if (m instanceof ToolExecutionResultMessage t) {
      b =
          Message.builder(Role.TOOL)
              .toolCallId(ToolCallIds.require(t.id(), t.toolName()))
              .content(t.text() == null ? "" : t.text());
    } else {
      throw new IllegalArgumentException(
          "a "
              + m.type()
              + " message cannot be held by a compacting memory (system, user, AI and tool result"
              + " messages can)");
    }
    return b.metadata(
            new MessageMetadata(
                null, null, null, null, Map.of(ORIGINAL, ChatMessageSerializer.messageToJson(m))))
        .build();
  }

  /** The LangChain4j message for {@code m}: its original when compaction left it as it was. */
  public static ChatMessage toLangChain4j(Message m) {
    Object json = m.metadata().extra().get(ORIGINAL);
    if (json instanceof String s) {
      ChatMessage original = ChatMessageDeserializer.messageFromJson(s);
      if (sameAs(original, m)) {
        return original;
      }
    }
    return switch (m.role()) {
      case SYSTEM -> SystemMessage.from(m.content());
      case USER -> UserMessage.from(m.content());
      case ASSISTANT -> {
        AiMessage.Builder ab = AiMessage.builder();
        if (!m.content().isEmpty() || !m.hasToolCalls()) {
          ab.text(m.content());
        }
        if (!m.reasoning().isEmpty()) {
          ab.thinking(String.join("\n", m.reasoning().stream().map(ReasoningBlock::text).toList()));
        }
        List<ToolExecutionRequest> requests = new ArrayList<>();
        for (ToolCall c : m.toolCalls()) {
          requests.add(
              ToolExecutionRequest.builder()
                  .id(c.id())
                  .name(c.name())
                  .arguments(c.arguments())
                  .build());
        }
        if (!requests.isEmpty()) {
          ab.toolExecutionRequests(requests);
        }
        yield ab.build();
      }
      case TOOL -> ToolExecutionResultMessage.from(m.toolCallId(), toolName(json), m.content());
    };
  }

  /** Whether {@code m} still says what {@code original} said. */
  private static boolean sameAs(ChatMessage original, Message m) {
    Message again = toCompactor(original);
    return again.role() == m.role()
        && again.content().equals(m.content())
        && again.toolCalls().equals(m.toolCalls())
        && Objects.equals(again.toolCallId(), m.toolCallId());
  }

  private static String toolName(Object json) {
    if (json instanceof String s
        && ChatMessageDeserializer.messageFromJson(s) instanceof ToolExecutionResultMessage t) {
      return t.toolName();
    }
    return null;
  }

  /** The text of a user message: its single text, or its text parts joined by blank lines. */
  private static String text(UserMessage u) {
    if (u.hasSingleText()) {
      return u.singleText();
    }
    StringBuilder sb = new StringBuilder();
    for (Content c : u.contents()) {
      if (c instanceof TextContent t) {
        if (sb.length() > 0) {
          sb.append("\n\n");
        }
        sb.append(t.text());
      }
    }
    return sb.toString();
  }

  private static String arguments(ToolExecutionRequest r) {
    return r.arguments() == null || r.arguments().isBlank() ? "{}" : r.arguments();
  }
}
