package dev.compactor.chat.store;

import java.util.Objects;

/**
 * A chat as listed: its record and how many messages, archived messages and summary records it has,
 * without the messages themselves.
 *
 * @param record the chat's record (model, settings, interactions, created and updated instants)
 * @param messageCount messages in the history now
 * @param archivedCount messages in the archive (what summaries and {@code set} removed)
 * @param summaryCount summary records
 */
public record ChatOverview(
    ChatRecord record, int messageCount, int archivedCount, int summaryCount) {
  public ChatOverview {
    Objects.requireNonNull(record, "record");
  }
}
