package dev.compactor.chat.memory;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.model.NonRetryableModelException;
import dev.compactor.core.model.StreamListener;
import java.util.List;
import java.util.Objects;

/**
 * A framework's chat model (LangChain4j, Spring AI) seen as a Compactor {@link ChatModel}, text in
 * and text out, for a model summarizer: a subclass only sends the messages with its framework
 * ({@link #ask}); this class names the model, turns the answer into a Compactor response and a
 * failure into a {@link NonRetryableModelException} (the framework retried already, if it does).
 * Streaming is not used: {@link #stream} answers as {@link #chat} does.
 */
public abstract class FrameworkChatModel implements ChatModel {
  private final String provider;
  private final String name;

  /**
   * @param name the model's {@code provider/model} name, for its context window and reports
   * @param defaultProvider the provider when {@code name} has no {@code provider/} prefix (the
   *     framework's name)
   */
  protected FrameworkChatModel(String name, String defaultProvider) {
    Objects.requireNonNull(name, "name");
    int slash = name.indexOf('/');
    this.provider = slash > 0 ? name.substring(0, slash) : defaultProvider;
    this.name = slash > 0 ? name.substring(slash + 1) : name;
  }

  /**
   * What the framework's model answered: its text, usage, response id and model (each optional).
   */
  public record Answer(String text, Usage usage, String id, String model) {}

  /**
   * Sends {@code messages} to the framework's model.
   *
   * @throws RuntimeException whatever the framework throws when the call fails
   */
  protected abstract Answer ask(List<Message> messages);

  @Override
  public String provider() {
    return provider;
  }

  @Override
  public String model() {
    return name;
  }

  @Override
  public ModelApi api() {
    return ModelApi.CHAT_COMPLETIONS;
  }

  @Override
  public ChatResponse chat(ChatRequest request) {
    Answer a = askOrFail(request.messages());
    Message reply =
        Message.builder(Role.ASSISTANT)
            .content(a.text() == null ? "" : a.text())
            .metadata(MessageMetadata.EMPTY.withUsage(a.usage()))
            .build();
    return new ChatResponse(reply, a.usage(), FinishReason.OTHER, null, null, a.id(), a.model());
  }

  /** {@link #ask}, its failure a {@link NonRetryableModelException} naming the provider. */
  private Answer askOrFail(List<Message> messages) {
    try {
      return ask(messages);
    } catch (RuntimeException e) {
      String what = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new NonRetryableModelException(
          provider + ": the summary model failed: " + what, ModelError.of(provider, 0), null, e);
    }
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener) {
    return chat(request);
  }
}
