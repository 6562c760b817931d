package dev.compactor.cli;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.log.imports.ImportResult;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.imports.Importers;
import dev.compactor.log.store.StoredConversation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What a command reads: a conversation directory of the store (its active view) or a transcript
 * file in any importable format (every conversation in it). Each is decoded once: a directory stays
 * open (locked) until {@link #close()}, so the command works on what it read.
 *
 * @param path what was given
 * @param format the detected format ({@code compactor-store} for a directory)
 * @param conversations the conversations read
 * @param store the open conversation directory when {@code path} is one (or an import was written),
 *     else null
 */
record ConversationInput(
    Path path, String format, List<ImportedConversation> conversations, StoredConversation store)
    implements AutoCloseable {

  static final String STORE_FORMAT = "compactor-store";

  /** Reads {@code path}; {@code format} null means detect. */
  static ConversationInput read(Path path, String format) {
    if (!Files.exists(path)) {
      throw new CompactorException("no such file or directory: " + path);
    }
    if (Files.isDirectory(path)) {
      if (!Files.exists(path.resolve("conversation.jsonl"))) {
        throw new CompactorException(
            path + " is a directory without conversation.jsonl: not a conversation directory");
      }
      return ofStore(path, STORE_FORMAT, StoredConversation.open(path));
    }
    ImportResult r = format == null ? Importers.read(path) : Importers.read(path, format);
    return new ConversationInput(path, r.format(), r.conversations(), null);
  }

  /** The active view of an open conversation directory (closed with this input). */
  static ConversationInput ofStore(Path shown, String format, StoredConversation c) {
    try {
      Path name = shown.getFileName();
      ImportedConversation ic =
          new ImportedConversation(
              name == null ? shown.toString() : name.toString(),
              c.activeMessages(),
              Map.of("view", c.activeView().id()),
              List.of());
      return new ConversationInput(shown, format, List.of(ic), c);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** The conversation directory when the input is one, else null. */
  Path storeDir() {
    return store == null ? null : store.directory();
  }

  /** The model named by the newest assistant message that names one, or null. */
  String detectedModel() {
    for (ImportedConversation c : conversations) {
      List<Message> m = c.messages();
      for (int i = m.size() - 1; i >= 0; i--) {
        Message x = m.get(i);
        if (x.role() == Role.ASSISTANT && x.metadata().model() != null) {
          String model = x.metadata().model();
          String provider = x.metadata().provider();
          return provider != null && !model.contains("/") ? provider + "/" + model : model;
        }
      }
    }
    return null;
  }

  @Override
  public void close() {
    if (store != null) {
      store.close();
    }
  }
}
