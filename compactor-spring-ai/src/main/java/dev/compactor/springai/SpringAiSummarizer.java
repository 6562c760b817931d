package dev.compactor.springai;

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
import java.util.Objects;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * Compactor's model summarizer ({@link ModelSummarizer}: the checkpoint prompt, its sections, the
 * clipping of long inputs) asking any Spring AI {@link org.springframework.ai.chat.model.ChatModel}
 * — often a cheaper one than the application's. The starter makes one from {@code
 * compactor.summary-model}.
 *
 * <pre>{@code
 * Compactor compactor = Compactor.forModel("openai/gpt-4o").budget("0.5")
 *     .summarizer(SpringAiSummarizer.of(miniModel, "openai/gpt-4o-mini"))
 *     .build();
 * }</pre>
 */
public final class SpringAiSummarizer {
  private SpringAiSummarizer() {}

  /**
   * A summarizer asking {@code model}.
   *
   * @param model the Spring AI model that writes checkpoints
   * @param name the model's {@code provider/model} name, for its context window and reports
   */
  public static Summarizer of(org.springframework.ai.chat.model.ChatModel model, String name) {
    return ModelSummarizer.builder(new Adapter(model, name)).build();
  }

  /** A Spring AI model seen as a Compactor {@link ChatModel} (text in, text out). */
  static final class Adapter implements ChatModel {
    private final org.springframework.ai.chat.model.ChatModel model;
    private final String provider;
    private final String name;

    Adapter(org.springframework.ai.chat.model.ChatModel model, String name) {
      this.model = Objects.requireNonNull(model, "model");
      Objects.requireNonNull(name, "name");
      int slash = name.indexOf('/');
      this.provider = slash > 0 ? name.substring(0, slash) : "spring-ai";
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
      org.springframework.ai.chat.model.ChatResponse r;
      try {
        r = model.call(new Prompt(SpringAiMessages.toSpringAi(request.messages())));
      } catch (RuntimeException e) {
        String what = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        throw new NonRetryableModelException(
            provider + ": the summary model failed: " + what, ModelError.of(provider, 0), null, e);
      }
      String text =
          r == null || r.getResult() == null || r.getResult().getOutput().getText() == null
              ? ""
              : r.getResult().getOutput().getText();
      Usage usage = null;
      if (r != null && r.getMetadata() != null && r.getMetadata().getUsage() != null) {
        var u = r.getMetadata().getUsage();
        usage =
            new Usage(
                u.getPromptTokens() == null ? 0 : u.getPromptTokens(),
                u.getCompletionTokens() == null ? 0 : u.getCompletionTokens(),
                0,
                0,
                0);
      }
      Message reply =
          Message.builder(Role.ASSISTANT)
              .content(text)
              .metadata(MessageMetadata.EMPTY.withUsage(usage))
              .build();
      String id = r == null || r.getMetadata() == null ? null : r.getMetadata().getId();
      String answered = r == null || r.getMetadata() == null ? null : r.getMetadata().getModel();
      return new ChatResponse(reply, usage, FinishReason.OTHER, null, null, id, answered);
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
      return chat(request);
    }
  }
}
