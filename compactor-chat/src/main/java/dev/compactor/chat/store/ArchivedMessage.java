package dev.compactor.chat.store;

import dev.compactor.core.message.Message;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;

/**
 * A message removed from a chat's history, kept so that nothing is lost.
 *
 * @param message the message exactly as it was
 * @param reason why it was removed
 * @param summaryUuid the summary that replaced it, for {@link Reason#SUMMARIZED}; else null
 * @param archivedAt when it was removed
 */
public record ArchivedMessage(
    Message message, Reason reason, String summaryUuid, Instant archivedAt) {

  /** Why a message left the history. */
  public enum Reason {
    /** Replaced by a summary (summary compaction or on-demand summarization). */
    SUMMARIZED,
    /** Replaced by a {@code message_operation: set} call. */
    REPLACED;

    /** {@code summarized} or {@code replaced}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public ArchivedMessage {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(archivedAt, "archivedAt");
    if ((reason == Reason.SUMMARIZED) != (summaryUuid != null)) {
      throw new IllegalArgumentException("a summary uuid goes with reason summarized, and only it");
    }
  }
}
