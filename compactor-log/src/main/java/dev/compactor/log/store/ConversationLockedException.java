package dev.compactor.log.store;

import dev.compactor.core.CompactorException;
import java.nio.file.Path;

/**
 * The conversation directory is already open for writing, by another process or elsewhere in this
 * JVM. Only one {@link StoredConversation} may have a directory open at a time; close the other one
 * first.
 */
public class ConversationLockedException extends CompactorException {
  private static final long serialVersionUID = 1L;

  private final transient Path directory;

  public ConversationLockedException(Path directory, String detail) {
    super("conversation " + directory + " is already open " + detail);
    this.directory = directory;
  }

  /** The conversation directory that is locked. */
  public Path directory() {
    return directory;
  }
}
