package dev.compactor.core.compaction.summary;

import dev.compactor.core.message.Message;
import java.util.List;

/**
 * Turns the messages a checkpoint replaces into a {@link Checkpoint}. The offline {@link
 * ExtractiveSummarizer} is the embedded default; a model-backed summarizer (in a module that may
 * call models) asks a model for checkpoint markdown and reads it with {@link Checkpoint#parse}.
 *
 * <p>Implementations must be thread-safe; {@link SummarizeProvider} shares one.
 */
public interface Summarizer {

  /**
   * Summarizes {@code covered}.
   *
   * @param covered the messages being replaced, oldest first, without earlier checkpoints (those
   *     come as {@code previous}) and without {@code uiOnly} messages; may be empty when only an
   *     earlier checkpoint is being replaced
   * @param previous the latest earlier checkpoint inside the replaced span, to carry forward, or
   *     null
   * @param instructions extra instructions (project-wide {@code compact_instructions} and inline
   *     ones), or null
   * @return the checkpoint; never null
   * @throws SummarizationException when no checkpoint can be produced; the caller keeps its view
   */
  Checkpoint summarize(List<Message> covered, Checkpoint previous, String instructions);

  /** A short name for reports, e.g. {@code extractive} or the model's name. */
  default String name() {
    return getClass().getSimpleName();
  }
}
