package dev.compactor.chat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.Bounds;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ToolSpec;
import java.util.List;
import java.util.Objects;

/**
 * One chat task call. Build it with {@link #builder()} or parse the JSON a client sends with {@link
 * dev.compactor.chat.json.ChatTaskJson#parseRequest}.
 *
 * @param messages the messages the call brings, in order; may be empty (a call that only submits
 *     the context)
 * @param messageOperation append to or replace the history
 * @param submitToModel whether the call goes to the model (default true)
 * @param model {@code provider/model}; null = the chat's model from its previous call
 * @param compaction a settings patch (the request's {@code compaction} value): null = no change,
 *     JSON {@code null} = remove every setting, an object = merged into the chat's settings
 * @param stopOnHighMessages the most messages the chat may hold with this call's messages added
 *     (default {@value #DEFAULT_STOP_ON_HIGH_MESSAGES}); null = no limit ({@code false})
 * @param stopOnHighInteractions the most model calls the chat may make (default {@value
 *     #DEFAULT_STOP_ON_HIGH_INTERACTIONS})
 * @param tools tools offered to the model
 * @param maxOutputTokens the reply's output limit, or null for the client default
 * @param temperature sampling temperature, or null for the provider default
 */
public record ChatTaskRequest(
    List<Message> messages,
    MessageOperation messageOperation,
    boolean submitToModel,
    String model,
    JsonNode compaction,
    Integer stopOnHighMessages,
    int stopOnHighInteractions,
    List<ToolSpec> tools,
    Integer maxOutputTokens,
    Double temperature) {

  /** Default {@code stop_on_high_messages}. */
  public static final int DEFAULT_STOP_ON_HIGH_MESSAGES = 200;

  /** Default {@code stop_on_high_interactions}. */
  public static final int DEFAULT_STOP_ON_HIGH_INTERACTIONS = 1000;

  /**
   * @throws IllegalArgumentException naming the field when a limit is below 1 or the model blank
   */
  public ChatTaskRequest {
    messages = List.copyOf(Objects.requireNonNull(messages, "messages"));
    Objects.requireNonNull(messageOperation, "messageOperation");
    tools = tools == null ? List.of() : List.copyOf(tools);
    if (model != null && model.isBlank()) {
      throw new IllegalArgumentException("model must not be blank");
    }
    if (stopOnHighMessages != null && stopOnHighMessages < 1) {
      throw new IllegalArgumentException(
          "stop_on_high_messages must be >= 1 or false, got " + stopOnHighMessages);
    }
    Bounds.atLeast(1, stopOnHighInteractions, "stop_on_high_interactions");
    if (maxOutputTokens != null && maxOutputTokens < 1) {
      throw new IllegalArgumentException("max_output_tokens must be >= 1, got " + maxOutputTokens);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builder with the defaults of the JSON request. */
  public static final class Builder {
    private List<Message> messages = List.of();
    private MessageOperation messageOperation = MessageOperation.APPEND;
    private boolean submitToModel = true;
    private String model;
    private JsonNode compaction;
    private Integer stopOnHighMessages = DEFAULT_STOP_ON_HIGH_MESSAGES;
    private int stopOnHighInteractions = DEFAULT_STOP_ON_HIGH_INTERACTIONS;
    private List<ToolSpec> tools = List.of();
    private Integer maxOutputTokens;
    private Double temperature;

    private Builder() {}

    public Builder messages(List<Message> messages) {
      this.messages = messages;
      return this;
    }

    public Builder messages(Message... messages) {
      this.messages = List.of(messages);
      return this;
    }

    public Builder messageOperation(MessageOperation op) {
      this.messageOperation = op;
      return this;
    }

    public Builder submitToModel(boolean submit) {
      this.submitToModel = submit;
      return this;
    }

    public Builder model(String model) {
      this.model = model;
      return this;
    }

    /** The settings patch; see {@link ChatTaskRequest#compaction()}. */
    public Builder compaction(JsonNode patch) {
      this.compaction = patch;
      return this;
    }

    /** The message limit, or null for none ({@code false}). */
    public Builder stopOnHighMessages(Integer limit) {
      this.stopOnHighMessages = limit;
      return this;
    }

    public Builder stopOnHighInteractions(int limit) {
      this.stopOnHighInteractions = limit;
      return this;
    }

    public Builder tools(List<ToolSpec> tools) {
      this.tools = tools;
      return this;
    }

    public Builder maxOutputTokens(Integer maxOutputTokens) {
      this.maxOutputTokens = maxOutputTokens;
      return this;
    }

    public Builder temperature(Double temperature) {
      this.temperature = temperature;
      return this;
    }

    public ChatTaskRequest build() {
      return new ChatTaskRequest(
          messages,
          messageOperation,
          submitToModel,
          model,
          compaction,
          stopOnHighMessages,
          stopOnHighInteractions,
          tools,
          maxOutputTokens,
          temperature);
    }
  }
}
