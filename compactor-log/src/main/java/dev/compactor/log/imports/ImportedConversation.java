package dev.compactor.log.imports;

import dev.compactor.core.message.Message;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One conversation read from a source.
 *
 * @param name identifies the conversation within its source, e.g. {@code task-12/trial-0} for a
 *     tau-bench file or the file's base name for single-conversation formats
 * @param messages the messages in order; valid for {@link dev.compactor.core.view.ViewValidator}
 * @param metadata conversation-level fields of the source (task id, reward, session id, …) as plain
 *     JSON values
 * @param notes how the source was mapped where the mapping is not one to one (tool outputs paired,
 *     ids derived, events merged, compactions followed), one sentence each
 * @param problems what in the source was broken and therefore skipped or repaired (malformed lines
 *     with their line number and byte offset, entries without a role, unreadable timestamps, tool
 *     results without their call, calls without their result), one sentence each naming where; a
 *     strict import refuses a source with any
 */
public record ImportedConversation(
    String name,
    List<Message> messages,
    Map<String, Object> metadata,
    List<String> notes,
    List<String> problems) {
  public ImportedConversation {
    Objects.requireNonNull(name, "name");
    messages = List.copyOf(messages);
    metadata =
        metadata == null || metadata.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    notes = notes == null ? List.of() : List.copyOf(notes);
    problems = problems == null ? List.of() : List.copyOf(problems);
  }

  /** A conversation read without problems. */
  public ImportedConversation(
      String name, List<Message> messages, Map<String, Object> metadata, List<String> notes) {
    this(name, messages, metadata, notes, List.of());
  }
}
