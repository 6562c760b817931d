package dev.compactor.langchain4j;

import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.core.compaction.summary.Summarizer;
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
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.model.output.TokenUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Compactor's model summarizer ({@link ModelSummarizer}: the checkpoint prompt, its sections, the
 * clipping of long inputs) asking any LangChain4j {@link dev.langchain4j.model.chat.ChatModel} —
 * often a cheaper one than the agent's.
 *
 * <pre>{@code
 * Compactor compactor = Compactor.forModel("openai/gpt-4o").budget("0.5")
 *     .summarizer(LangChain4jSummarizer.of(miniModel, "openai/gpt-4o-mini"))
 *     .build();
 * }</pre>
 */
public final class LangChain4jSummarizer {
  private LangChain4jSummarizer() {}

  /**
   * A summarizer asking {@code model}.
   *
   * @param model the LangChain4j model that writes checkpoints
   * @param name the model's {@code provider/model} name, for its context window and reports
   */
  public static Summarizer of(dev.langchain4j.model.chat.ChatModel model, String name) {
    return ModelSummarizer.builder(new Adapter(model, name)).build();
  }

  /** A LangChain4j model seen as a Compactor {@link ChatModel} (text in, text out). */
  static final class Adapter implements ChatModel {
    private final dev.langchain4j.model.chat.ChatModel model;
    private final String provider;
    private final String name;

    Adapter(dev.langchain4j.model.chat.ChatModel model, String name) {
      this.model = Objects.requireNonNull(model, "model");
      Objects.requireNonNull(name, "name");
      int slash = name.indexOf('/');
      this.provider = slash > 0 ? name.substring(0, slash) : "langchain4j";
      this.name = slash > 0 ? name.substring(slash + 1) : name;
    }

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
      List<ChatMessage> messages = new ArrayList<>();
      for (Message m : request.messages()) {
        messages.add(LangChain4jMessages.toLangChain4j(m));
      }
      dev.langchain4j.model.chat.response.ChatResponse r;
      try {
        r = model.chat(messages);
      } catch (RuntimeException e) {
        String what = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        throw new NonRetryableModelException(
            provider + ": the summary model failed: " + what, ModelError.of(provider, 0), null, e);
      }
      String text =
          r.aiMessage() == null || r.aiMessage().text() == null ? "" : r.aiMessage().text();
      TokenUsage u = r.tokenUsage();
      Usage usage =
          u == null
              ? null
              : new Usage(
                  u.inputTokenCount() == null ? 0 : u.inputTokenCount(),
                  u.outputTokenCount() == null ? 0 : u.outputTokenCount(),
                  0,
                  0,
                  0);
      Message reply =
          Message.builder(Role.ASSISTANT)
              .content(text)
              .metadata(MessageMetadata.EMPTY.withUsage(usage))
              .build();
      return new ChatResponse(reply, usage, FinishReason.OTHER, null, null, r.id(), r.modelName());
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
      return chat(request);
    }
  }
}
