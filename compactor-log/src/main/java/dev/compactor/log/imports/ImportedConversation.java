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
 * @param notes what the importer skipped, merged or repaired, one sentence each
 */
public record ImportedConversation(
    String name, List<Message> messages, Map<String, Object> metadata, List<String> notes) {
  public ImportedConversation {
    Objects.requireNonNull(name, "name");
    messages = List.copyOf(messages);
    metadata =
        metadata == null || metadata.isEmpty()
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    notes = notes == null ? List.of() : List.copyOf(notes);
  }
}
