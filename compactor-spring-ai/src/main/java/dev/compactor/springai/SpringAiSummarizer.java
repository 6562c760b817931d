package dev.compactor.springai;

import dev.compactor.chat.memory.FrameworkChatModel;
import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import java.util.List;
import java.util.Objects;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.model.ChatResponse;
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

  /** A Spring AI model seen as a Compactor model (text in, text out). */
  static final class Adapter extends FrameworkChatModel {
    private final org.springframework.ai.chat.model.ChatModel model;

    Adapter(org.springframework.ai.chat.model.ChatModel model, String name) {
      super(name, "spring-ai");
      this.model = Objects.requireNonNull(model, "model");
    }

    @Override
    protected Answer ask(List<Message> messages) {
      ChatResponse r = model.call(new Prompt(SpringAiMessages.toSpringAi(messages)));
      if (r == null) {
        return new Answer(null, null, null, null);
      }
      String text = r.getResult() == null ? null : r.getResult().getOutput().getText();
      ChatResponseMetadata m = r.getMetadata();
      if (m == null) {
        return new Answer(text, null, null, null);
      }
      Usage usage = null;
      if (m.getUsage() != null) {
        var u = m.getUsage();
        usage =
            new Usage(
                u.getPromptTokens() == null ? 0 : u.getPromptTokens(),
                u.getCompletionTokens() == null ? 0 : u.getCompletionTokens(),
                0,
                0,
                0);
      }
      return new Answer(text, usage, m.getId(), m.getModel());
    }
  }
}
