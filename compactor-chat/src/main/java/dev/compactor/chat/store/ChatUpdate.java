package dev.compactor.chat.store;

import dev.compactor.core.message.Message;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What one call changes in a chat, applied by {@link ChatStore#update} in one transaction.
 *
 * @param record the chat's new record (its {@code version} is ignored: the store sets it)
 * @param messages the chat's complete new history, in order. Messages already stored are recognized
 *     by id and must be unchanged; new ones are inserted; stored ones missing here are removed and
 *     must be listed in {@code archived}
 * @param archived the messages removed from the history, to keep in the archive
 * @param summaries summary records made by the call
 * @param call the call's record (when, model, compaction report), or null for an update that is not
 *     a chat task call
 */
public record ChatUpdate(
    ChatRecord record,
    List<Message> messages,
    List<ArchivedMessage> archived,
    List<SummaryRecord> summaries,
    CallRecord call) {
  /** An update without a call record. */
  public ChatUpdate(
      ChatRecord record,
      List<Message> messages,
      List<ArchivedMessage> archived,
      List<SummaryRecord> summaries) {
    this(record, messages, archived, summaries, null);
  }

  /**
   * @throws IllegalArgumentException when two messages share an id
   */
  public ChatUpdate {
    Objects.requireNonNull(record, "record");
    messages = List.copyOf(messages);
    archived = archived == null ? List.of() : List.copyOf(archived);
    summaries = summaries == null ? List.of() : List.copyOf(summaries);
    Set<String> ids = new HashSet<>();
    for (Message m : messages) {
      if (!ids.add(m.id().value())) {
        throw new IllegalArgumentException("message id " + m.id() + " appears twice in the chat");
      }
    }
  }
}
