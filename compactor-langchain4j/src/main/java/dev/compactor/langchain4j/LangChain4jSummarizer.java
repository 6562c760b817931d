package dev.compactor.langchain4j;

import dev.compactor.chat.memory.FrameworkChatModel;
import dev.compactor.core.compaction.summary.ModelSummarizer;
import dev.compactor.core.compaction.summary.Summarizer;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
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

  /** A LangChain4j model seen as a Compactor model (text in, text out). */
  static final class Adapter extends FrameworkChatModel {
    private final dev.langchain4j.model.chat.ChatModel model;

    Adapter(dev.langchain4j.model.chat.ChatModel model, String name) {
      super(name, "langchain4j");
      this.model = Objects.requireNonNull(model, "model");
    }

    @Override
    protected Answer ask(List<Message> messages) {
      ChatResponse r =
          model.chat(messages.stream().map(LangChain4jMessages::toLangChain4j).toList());
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
      String text = r.aiMessage() == null ? null : r.aiMessage().text();
      return new Answer(text, usage, r.id(), r.modelName());
    }
  }
}
