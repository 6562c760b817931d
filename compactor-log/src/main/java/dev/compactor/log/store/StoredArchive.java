package dev.compactor.log.store;

import dev.compactor.core.compaction.OutputArchive;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The {@link OutputArchive} of a conversation directory: removed content is saved under {@code
 * tool-outputs/compaction/}, and the reference names that file (relative to the conversation
 * directory), the master message(s) and their byte ranges in {@code conversation.jsonl}, so both a
 * person and a recall tool can get the exact original back. Thread-safe (the conversation
 * serializes writes).
 */
public final class StoredArchive implements OutputArchive {
  static final String CATEGORY = "compaction";
  private final StoredConversation conversation;

  public StoredArchive(StoredConversation conversation) {
    this.conversation = Objects.requireNonNull(conversation, "conversation");
  }

  @Override
  public String save(Message source, String content) {
    var file = conversation.saveToolOutput(content, CATEGORY);
    String where;
    try {
      List<MessageRange> ranges = conversation.recoveryRanges(source.id());
      where =
          ranges.stream()
              .map(r -> "master message " + r.id() + " (bytes " + r.start() + "-" + r.end() + ")")
              .collect(Collectors.joining(", "));
    } catch (dev.compactor.core.CompactorException e) {
      // Not (yet) a stored message: name it by id only.
      where = "message " + source.id();
    }
    // Relative to the conversation directory: the reference stays true when the directory is
    // moved (an import is compacted in a temporary directory, then renamed into place).
    return "Full output saved to: "
        + conversation.directory().relativize(file)
        + "; original in "
        + conversation.conversationFile().getFileName()
        + ": "
        + where;
  }

  /** The original messages behind a reference id (master or synthesized). */
  public List<Message> recover(MessageId id) {
    return conversation.recover(id);
  }
}
