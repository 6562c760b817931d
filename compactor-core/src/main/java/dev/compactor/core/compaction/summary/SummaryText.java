package dev.compactor.core.compaction.summary;

import dev.compactor.core.message.Usage;
import dev.compactor.core.model.FinishReason;
import java.util.Objects;

/**
 * A free-text summary as its summarizer wrote it (see {@link Summarizer#summarizeText}), with the
 * usage of the call that wrote it.
 *
 * @param text the summary, stripped of leading and trailing white space; may be empty when the
 *     model answered with nothing (the caller decides whether that is a failure)
 * @param usage the summary call's usage; all zero when the provider reported none or no model was
 *     called
 * @param finishReason why the summary call stopped
 */
public record SummaryText(String text, Usage usage, FinishReason finishReason) {
  /** The usage of a summary no model was called for, or whose provider reported none. */
  public static final Usage NO_USAGE = new Usage(0, 0, 0, 0, 0);

  public SummaryText {
    Objects.requireNonNull(text, "text");
    usage = usage == null ? NO_USAGE : usage;
    Objects.requireNonNull(finishReason, "finishReason");
  }
}
