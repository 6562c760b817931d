package dev.compactor.core.model;

import dev.compactor.core.message.Message;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One model call: the messages to send and how to answer.
 *
 * <p>Messages are sent in order; {@code uiOnly} ones are skipped by every client. Pass the stored
 * conversation as it is (including {@code uiOnly} messages): clients stamp the reply's {@code
 * metadata.input} from this exact list (see {@link InputFingerprints}), so the reply's usage
 * becomes a valid usage anchor once it is appended to the same list.
 *
 * <p>{@code options} are provider-specific top-level request fields (e.g. {@code reasoning_effort},
 * {@code seed}, {@code thinking}, {@code store}); values are plain JSON values (String, Number,
 * Boolean, null, List and Map of those). They are written after the fields the client sets and
 * override them, except the fields that carry the conversation itself ({@code model}, {@code
 * messages}, {@code input}, {@code system}, {@code instructions}, {@code tools}, {@code stream}),
 * which a client rejects with {@link IllegalArgumentException}.
 *
 * <p>{@code extensions} are provider-specific settings that core carries opaquely, at most one per
 * class (see {@link RequestExtension}): provider compaction is one, e.g. compactor-models' {@code
 * ResponsesCompaction} (OpenAI Responses server-side compaction) and {@code
 * AnthropicContextManagement} (Anthropic context editing and compaction). A client whose API cannot
 * honour an extension rejects the request with {@link IllegalArgumentException} rather than
 * silently dropping it.
 *
 * <pre>{@code
 * ChatRequest req = ChatRequest.builder()
 *     .messages(conversation.activeMessages())
 *     .tools(List.of(new ToolSpec("read_file", "Read a file", schemaJson)))
 *     .maxOutputTokens(4096)
 *     .build();
 * }</pre>
 *
 * @param model the model to call, or null for the client's own model
 * @param messages the conversation, not empty
 * @param tools tools offered, names distinct
 * @param maxOutputTokens output limit, &ge; 1, or null for the client default
 * @param temperature sampling temperature in [0, 2], or null for the provider default
 * @param options extra provider-specific request fields, keys not null
 * @param extensions provider-specific settings keyed by their class, each value an instance of its
 *     key
 */
public record ChatRequest(
    String model,
    List<Message> messages,
    List<ToolSpec> tools,
    Integer maxOutputTokens,
    Double temperature,
    Map<String, Object> options,
    Map<Class<? extends RequestExtension>, RequestExtension> extensions) {

  public ChatRequest {
    Objects.requireNonNull(messages, "messages");
    messages = List.copyOf(messages);
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("a chat request needs at least one message");
    }
    if (model != null && model.isBlank()) {
      throw new IllegalArgumentException("model must not be blank (use null for the default)");
    }
    tools = tools == null ? List.of() : List.copyOf(tools);
    Set<String> names = new HashSet<>();
    for (ToolSpec t : tools) {
      if (!names.add(t.name())) {
        throw new IllegalArgumentException("tool \"" + t.name() + "\" is offered twice");
      }
    }
    if (maxOutputTokens != null && maxOutputTokens < 1) {
      throw new IllegalArgumentException("maxOutputTokens must be >= 1, got " + maxOutputTokens);
    }
    if (temperature != null && !(temperature >= 0 && temperature <= 2)) {
      throw new IllegalArgumentException("temperature must be in [0, 2], got " + temperature);
    }
    if (options == null || options.isEmpty()) {
      options = Map.of();
    } else {
      for (String k : options.keySet()) {
        Objects.requireNonNull(k, "option key");
      }
      options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }
    if (extensions == null || extensions.isEmpty()) {
      extensions = Map.of();
    } else {
      for (Map.Entry<Class<? extends RequestExtension>, RequestExtension> e :
          extensions.entrySet()) {
        Objects.requireNonNull(e.getKey(), "extension key");
        Objects.requireNonNull(e.getValue(), "extension " + e.getKey().getName());
        if (!e.getKey().isInstance(e.getValue())) {
          throw new IllegalArgumentException(
              "extension keyed by "
                  + e.getKey().getName()
                  + " is a "
                  + e.getValue().getClass().getName());
        }
      }
      extensions = Collections.unmodifiableMap(new LinkedHashMap<>(extensions));
    }
  }

  /** The extension of the given class, if the request carries one. */
  public <T extends RequestExtension> Optional<T> extension(Class<T> type) {
    return Optional.ofNullable(extensions.get(type)).map(type::cast);
  }

  /** A request for {@code messages} with every other field at its default. */
  public static ChatRequest of(List<Message> messages) {
    return builder().messages(messages).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder pre-filled with this request's fields. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.model = model;
    b.messages = messages;
    b.tools = tools;
    b.maxOutputTokens = maxOutputTokens;
    b.temperature = temperature;
    b.options = new LinkedHashMap<>(options);
    b.extensions = new LinkedHashMap<>(extensions);
    return b;
  }

  /** This request for another model. */
  public ChatRequest withModel(String newModel) {
    return toBuilder().model(newModel).build();
  }

  /** This request with other messages. */
  public ChatRequest withMessages(List<Message> newMessages) {
    return toBuilder().messages(newMessages).build();
  }

  /** Builder of {@link ChatRequest}; {@link #build} validates. */
  public static final class Builder {
    private String model;
    private List<Message> messages;
    private List<ToolSpec> tools = List.of();
    private Integer maxOutputTokens;
    private Double temperature;
    private Map<String, Object> options = new LinkedHashMap<>();
    private Map<Class<? extends RequestExtension>, RequestExtension> extensions =
        new LinkedHashMap<>();

    private Builder() {}

    public Builder model(String model) {
      this.model = model;
      return this;
    }

    public Builder messages(List<Message> messages) {
      this.messages = messages;
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

    /** Replaces all options. */
    public Builder options(Map<String, Object> options) {
      this.options = new LinkedHashMap<>(options == null ? Map.of() : options);
      return this;
    }

    /** Adds one option; a null value is sent as JSON null. */
    public Builder option(String key, Object value) {
      this.options.put(key, value);
      return this;
    }

    /** Adds an extension, replacing one of the same class. */
    public Builder extension(RequestExtension extension) {
      Objects.requireNonNull(extension, "extension");
      this.extensions.put(extension.getClass(), extension);
      return this;
    }

    /** Removes the extension of the given class, if any. */
    public Builder withoutExtension(Class<? extends RequestExtension> type) {
      this.extensions.remove(type);
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the bad field
     * @throws NullPointerException when no messages were set
     */
    public ChatRequest build() {
      return new ChatRequest(
          model, messages, tools, maxOutputTokens, temperature, options, extensions);
    }
  }
}
