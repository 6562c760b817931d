package dev.compactor.testkit;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A trivial provider that replaces everything before the second-to-last user request (after the
 * leading system messages, stopping at pinned ones) with one synthesized message: exercises
 * multi-message provenance, dropping and recovery through views.
 */
final class CheckpointProvider extends OverLimitProvider {
  CheckpointProvider() {
    super("test-checkpoint");
  }

  @Override
  public CompactionResult compress(List<Message> messages, CompressionConfig config) {
    int start = config.keepHead();
    while (start < messages.size() && messages.get(start).role() == Role.SYSTEM) {
      start++;
    }
    List<Integer> users = new ArrayList<>();
    for (int i = start; i < messages.size(); i++) {
      if (messages.get(i).role() == Role.USER) {
        users.add(i);
      }
      if (messages.get(i).pinned()) {
        break; // never cover a pinned message: cut at a user request before it
      }
    }
    if (users.size() < 2) {
      return CompactionResult.unchanged(messages);
    }
    int end = users.get(users.size() - 2); // exclusive; a user request starts the kept tail
    if (end - start < 2) {
      return CompactionResult.unchanged(messages);
    }
    List<MessageId> covered = new ArrayList<>();
    for (int i = start; i < end; i++) {
      covered.add(messages.get(i).id());
    }
    Message checkpoint =
        Message.builder(Role.USER)
            .id("checkpoint-" + messages.get(end - 1).id())
            .content("[" + covered.size() + " earlier messages summarized]")
            .timestamp(messages.get(end - 1).timestamp())
            .build();
    List<Message> out = new ArrayList<>(messages.subList(0, start));
    out.add(checkpoint);
    out.addAll(messages.subList(end, messages.size()));
    return CompactionResult.of(
        messages, out, List.of("summary is a placeholder"), Map.of(checkpoint.id(), covered));
  }
}
