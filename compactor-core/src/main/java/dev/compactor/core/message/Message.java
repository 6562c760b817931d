package dev.compactor.core.message;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One immutable message of a conversation.
 *
 * <p>Tool results have role {@link Role#TOOL} and a {@code toolCallId} naming the call of an
 * earlier assistant message; assistant messages carry their {@code toolCalls}. Reasoning blocks are
 * kept verbatim. {@code uiOnly} messages are shown to people but never sent to a model and never
 * counted; {@code hidden} messages are sent but not shown; {@code pinned} messages are never
 * compacted.
 *
 * @param id unique within the conversation
 * @param role who the message is from
 * @param content text content, never null (may be empty, e.g. an assistant message with only tool
 *     calls)
 * @param reasoning reasoning blocks, in order, never rewritten
 * @param toolCalls tool calls of an assistant message (empty for other roles)
 * @param toolCallId for a {@link Role#TOOL} message, the call it answers; otherwise null
 * @param timestamp when the message was created, or null when the source had none
 * @param pinned never compacted
 * @param hidden sent to the model but not shown
 * @param uiOnly shown but never sent nor counted
 * @param metadata model, usage and fields kept from the source
 */
public record Message(
    MessageId id,
    Role role,
    String content,
    List<ReasoningBlock> reasoning,
    List<ToolCall> toolCalls,
    String toolCallId,
    Instant timestamp,
    boolean pinned,
    boolean hidden,
    boolean uiOnly,
    MessageMetadata metadata) {

  public Message {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(role, "role");
    content = content == null ? "" : content;
    reasoning = reasoning == null ? List.of() : List.copyOf(reasoning);
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    metadata = metadata == null ? MessageMetadata.EMPTY : metadata;
    if (!toolCalls.isEmpty() && role != Role.ASSISTANT) {
      throw new IllegalArgumentException(
          "message " + id + ": only assistant messages carry tool calls, not " + role.wireName());
    }
  }

  public static Builder builder(Role role) {
    return new Builder(role);
  }

  public static Message system(String content) {
    return builder(Role.SYSTEM).content(content).build();
  }

  public static Message user(String content) {
    return builder(Role.USER).content(content).build();
  }

  public static Message assistant(String content) {
    return builder(Role.ASSISTANT).content(content).build();
  }

  public static Message assistant(String content, List<ToolCall> calls) {
    return builder(Role.ASSISTANT).content(content).toolCalls(calls).build();
  }

  public static Message toolResult(String toolCallId, String content) {
    return builder(Role.TOOL).toolCallId(toolCallId).content(content).build();
  }

  public boolean hasToolCalls() {
    return !toolCalls.isEmpty();
  }

  public boolean isToolResult() {
    return role == Role.TOOL;
  }

  /** A builder pre-filled with this message's fields. */
  public Builder toBuilder() {
    Builder b = new Builder(role);
    b.id = id;
    b.content = content;
    b.reasoning = reasoning;
    b.toolCalls = toolCalls;
    b.toolCallId = toolCallId;
    b.timestamp = timestamp;
    b.pinned = pinned;
    b.hidden = hidden;
    b.uiOnly = uiOnly;
    b.metadata = metadata;
    return b;
  }

  public Message withContent(String newContent) {
    return toBuilder().content(newContent).build();
  }

  public Message withId(MessageId newId) {
    return toBuilder().id(newId).build();
  }

  /** Builder; a random id is assigned when none is set. */
  public static final class Builder {
    private MessageId id;
    private Role role;
    private String content = "";
    private List<ReasoningBlock> reasoning = List.of();
    private List<ToolCall> toolCalls = List.of();
    private String toolCallId;
    private Instant timestamp;
    private boolean pinned;
    private boolean hidden;
    private boolean uiOnly;
    private MessageMetadata metadata = MessageMetadata.EMPTY;

    private Builder(Role role) {
      this.role = role;
    }

    public Builder id(MessageId id) {
      this.id = id;
      return this;
    }

    public Builder id(String id) {
      this.id = MessageId.of(id);
      return this;
    }

    public Builder role(Role role) {
      this.role = role;
      return this;
    }

    public Builder content(String content) {
      this.content = content;
      return this;
    }

    public Builder reasoning(List<ReasoningBlock> reasoning) {
      this.reasoning = reasoning;
      return this;
    }

    public Builder toolCalls(List<ToolCall> toolCalls) {
      this.toolCalls = toolCalls;
      return this;
    }

    public Builder toolCallId(String toolCallId) {
      this.toolCallId = toolCallId;
      return this;
    }

    public Builder timestamp(Instant timestamp) {
      this.timestamp = timestamp;
      return this;
    }

    public Builder pinned(boolean pinned) {
      this.pinned = pinned;
      return this;
    }

    public Builder hidden(boolean hidden) {
      this.hidden = hidden;
      return this;
    }

    public Builder uiOnly(boolean uiOnly) {
      this.uiOnly = uiOnly;
      return this;
    }

    public Builder metadata(MessageMetadata metadata) {
      this.metadata = metadata;
      return this;
    }

    public Message build() {
      return new Message(
          id == null ? MessageId.random() : id,
          role,
          content,
          reasoning,
          toolCalls,
          toolCallId,
          timestamp,
          pinned,
          hidden,
          uiOnly,
          metadata);
    }
  }
}
