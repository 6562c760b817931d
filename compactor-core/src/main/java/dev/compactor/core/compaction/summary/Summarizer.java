package dev.compactor.core.compaction.summary;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.FinishReason;
import java.util.List;

/**
 * Turns the messages a checkpoint replaces into a {@link Checkpoint}. The offline {@link
 * ExtractiveSummarizer} is the embedded default; a model-backed summarizer (in a module that may
 * call models) asks a model for checkpoint markdown and reads it with {@link Checkpoint#parse}.
 *
 * <p>Besides checkpoints, a summarizer writes free-text summaries ({@link #summarizeText}): the
 * summary a chat task keeps in place of the messages it summarized.
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

  /**
   * Summarizes {@code covered} as free text, following {@code instructions}, which are the whole
   * brief (not additions to a checkpoint format). The default writes the checkpoint of {@code
   * summarize(covered, null, instructions)} as markdown, with no usage: a summarizer that calls no
   * model costs nothing.
   *
   * @param covered the messages to summarize, oldest first
   * @param instructions what the summary should keep, never null
   * @param maxOutputTokens the summary's output limit, at least 1
   * @return the summary as written, with the usage of writing it; its text may be empty
   * @throws SummarizationException when the summary cannot be written (the model call fails)
   */
  default SummaryText summarizeText(
      List<Message> covered, String instructions, int maxOutputTokens) {
    Checkpoint cp = summarize(covered, null, instructions);
    return new SummaryText(cp.render().strip(), SummaryText.NO_USAGE, FinishReason.STOP);
  }

  /** A short name for reports, e.g. {@code extractive} or the model's name. */
  default String name() {
    return getClass().getSimpleName();
  }
}
