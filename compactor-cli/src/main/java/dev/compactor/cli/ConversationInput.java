package dev.compactor.cli;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.log.imports.ImportResult;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.imports.Importers;
import dev.compactor.log.store.StoredConversation;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a command reads: a conversation directory of the store (its active view) or a transcript
 * file in any importable format (every conversation in it).
 *
 * @param path what was given
 * @param format the detected format ({@code compactor-store} for a directory)
 * @param conversations the conversations read
 * @param storeDir the conversation directory when {@code path} is one, else null
 */
record ConversationInput(
    Path path, String format, List<ImportedConversation> conversations, Path storeDir) {

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
      try (StoredConversation c = StoredConversation.open(path)) {
        ImportedConversation ic =
            new ImportedConversation(
                path.getFileName() == null ? path.toString() : path.getFileName().toString(),
                c.activeMessages(),
                java.util.Map.of("view", c.activeView().id()),
                List.of());
        return new ConversationInput(path, STORE_FORMAT, List.of(ic), path);
      }
    }
    ImportResult r = format == null ? Importers.read(path) : Importers.read(path, format);
    return new ConversationInput(path, r.format(), r.conversations(), null);
  }

  /**
   * What the import found broken and skipped or repaired, each prefixed with the conversation's
   * name when the source holds several.
   */
  List<String> problems() {
    List<String> out = new ArrayList<>();
    for (ImportedConversation c : conversations) {
      for (String p : c.problems()) {
        out.add(conversations.size() > 1 ? c.name() + ": " + p : p);
      }
    }
    return out;
  }

  /**
   * How the import mapped the source where it is not one to one, prefixed like {@link #problems}.
   */
  List<String> notes() {
    List<String> out = new ArrayList<>();
    for (ImportedConversation c : conversations) {
      for (String n : c.notes()) {
        out.add(conversations.size() > 1 ? c.name() + ": " + n : n);
      }
    }
    return out;
  }

  /**
   * This input, after refusing it when {@code strict} and the import found problems.
   *
   * @throws CompactorException under {@code --strict}, listing the problems
   */
  ConversationInput checked(boolean strict) {
    List<String> p = problems();
    if (strict && !p.isEmpty()) {
      StringBuilder sb =
          new StringBuilder()
              .append(path)
              .append(" (")
              .append(format)
              .append("): ")
              .append(p.size())
              .append(" problem(s) in the input, refused by --strict:");
      p.forEach(x -> sb.append("\n  ").append(x));
      throw new CompactorException(sb.toString());
    }
    return this;
  }

  /** Prints the notes and problems on {@code err}, one line each, naming the file. */
  void printNotes(PrintWriter err) {
    for (String n : notes()) {
      err.println("compactor: note: " + path + ": " + n);
    }
    for (String p : problems()) {
      err.println("compactor: warning: " + path + ": " + p);
    }
    err.flush();
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
}
