package dev.compactor.log.imports;

import java.util.List;
import java.util.Objects;

/**
 * What an import produced.
 *
 * @param format name of the importer that read the source, e.g. {@code gptme}
 * @param source name of the source (the file name for files)
 * @param conversations the conversations in source order; one for most formats
 */
public record ImportResult(String format, String source, List<ImportedConversation> conversations) {
  public ImportResult {
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(source, "source");
    conversations = List.copyOf(conversations);
  }

  /** Messages over all conversations. */
  public int messageCount() {
    return conversations.stream().mapToInt(c -> c.messages().size()).sum();
  }

  /**
   * Every conversation's {@linkplain ImportedConversation#problems() problems}, each prefixed with
   * the conversation's name when the source holds several.
   */
  public List<String> problems() {
    List<String> out = new java.util.ArrayList<>();
    for (ImportedConversation c : conversations) {
      for (String p : c.problems()) {
        out.add(conversations.size() > 1 ? c.name() + ": " + p : p);
      }
    }
    return out;
  }

  /**
   * The only conversation.
   *
   * @throws ImportException when the source held more or fewer than one conversation
   */
  public ImportedConversation single() {
    if (conversations.size() != 1) {
      throw new ImportException(
          source
              + " ("
              + format
              + ") holds "
              + conversations.size()
              + " conversations, not exactly one");
    }
    return conversations.get(0);
  }
}
