package dev.compactor.log.store;

import dev.compactor.core.compaction.OutputArchive;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import java.util.List;
import java.util.Objects;

/**
 * The {@link OutputArchive} of a conversation directory: removed content is saved under {@code
 * tool-outputs/compaction/}, and the reference names that file by its path relative to the
 * conversation directory (never an absolute local path: the directory may be moved or shared), the
 * master message(s) and their byte ranges in {@code conversation.jsonl}, so both a person and a
 * recall tool can get the exact original back. The files are made durable together before the next
 * view is committed ({@link StoredConversation#switchTo}), so that the saves of one compaction
 * share their disk flushes. Thread-safe (the conversation serializes writes).
 */
public final class StoredArchive implements OutputArchive {
  static final String CATEGORY = "compaction";
  private final StoredConversation conversation;

  public StoredArchive(StoredConversation conversation) {
    this.conversation = Objects.requireNonNull(conversation, "conversation");
  }

  @Override
  public String save(Message source, String content) {
    var file = conversation.saveToolOutputUnsynced(content, CATEGORY);
    StringBuilder sb =
        new StringBuilder("Full output saved to: ")
            .append(relative(file))
            .append("; original in ")
            .append(StoredConversation.MASTER_FILE)
            .append(": ");
    List<MessageRange> ranges;
    try {
      ranges = conversation.recoveryRanges(source.id());
    } catch (dev.compactor.core.CompactorException e) {
      // Not (yet) a stored message: name it by id only.
      return sb.append("message ").append(source.id()).toString();
    }
    for (int i = 0; i < ranges.size(); i++) {
      MessageRange r = ranges.get(i);
      sb.append(i == 0 ? "" : ", ").append("master message ").append(r.id());
      sb.append(" (bytes ").append(r.start()).append('-').append(r.end()).append(')');
    }
    return sb.toString();
  }

  /** {@code file} relative to the conversation directory, with {@code /} separators. */
  private String relative(java.nio.file.Path file) {
    java.nio.file.Path dir = conversation.directory().toAbsolutePath().normalize();
    java.nio.file.Path f = file.toAbsolutePath().normalize();
    java.nio.file.Path rel = f.startsWith(dir) ? dir.relativize(f) : f.getFileName();
    StringBuilder sb = new StringBuilder();
    for (java.nio.file.Path part : rel) {
      sb.append(sb.length() == 0 ? "" : "/").append(part);
    }
    return sb.toString();
  }

  /**
   * Where a reference's saved file is: {@code reference} as this archive writes it resolved against
   * the conversation directory, or null when it names none.
   */
  public java.nio.file.Path savedFile(String reference) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("Full output saved to: (\\S+);").matcher(reference);
    return m.find() ? conversation.directory().resolve(m.group(1)) : null;
  }

  /** The original messages behind a reference id (master or synthesized). */
  public List<Message> recover(MessageId id) {
    return conversation.recover(id);
  }
}
