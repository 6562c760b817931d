package dev.compactor.cli;

import dev.compactor.core.CompactorException;
import dev.compactor.log.imports.ImportResult;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.imports.Importers;
import dev.compactor.log.store.StoredConversation;
import dev.compactor.replay.RecordedConversation;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a command reads: a conversation directory of the store (its active view) or a transcript
 * file in any importable format (every conversation in it). Each is decoded once: a directory read
 * for writing stays open (locked) until {@link #close()}, so the command works on what it read; a
 * directory read read-only is read in place without a lock and keeps only a snapshot of its
 * settings.
 *
 * @param path what was given
 * @param format the detected format ({@code compactor-store} for a directory)
 * @param conversations the conversations read
 * @param store the open conversation directory when {@code path} is one read for writing (or an
 *     import was written), else null
 * @param storeDir the conversation directory when the input is one (open or read read-only), else
 *     null
 * @param storeSettings the settings of a directory read read-only (empty otherwise: an open
 *     directory's settings are read from {@code store})
 */
record ConversationInput(
    Path path,
    String format,
    List<ImportedConversation> conversations,
    StoredConversation store,
    Path storeDir,
    Map<String, String> storeSettings)
    implements AutoCloseable {

  static final String STORE_FORMAT = "compactor-store";

  ConversationInput(
      Path path,
      String format,
      List<ImportedConversation> conversations,
      StoredConversation store) {
    this(path, format, conversations, store, store == null ? null : store.directory(), Map.of());
  }

  /** Reads {@code path}; {@code format} null means detect. */
  static ConversationInput read(Path path, String format) {
    return read(path, format, false);
  }

  /**
   * Reads {@code path}; {@code format} null means detect. With {@code readOnly}, a conversation
   * directory is read without changing anything in it — no lock file, no repair of a torn last line
   * (it is reported as a problem instead), no new directories — so a read-only directory can be
   * inspected: its files are read in place and nothing is written anywhere.
   */
  static ConversationInput read(Path path, String format, boolean readOnly) {
    if (!Files.exists(path)) {
      throw new CompactorException("no such file or directory: " + path);
    }
    if (Files.isDirectory(path)) {
      if (!Files.exists(path.resolve("conversation.jsonl"))) {
        throw new CompactorException(
            path + " is a directory without conversation.jsonl: not a conversation directory");
      }
      return readOnly
          ? readInPlace(path)
          : ofStore(path, STORE_FORMAT, StoredConversation.open(path));
    }
    ImportResult r = format == null ? Importers.read(path) : Importers.read(path, format);
    return new ConversationInput(path, r.format(), r.conversations(), null);
  }

  /** The active view of an open conversation directory (closed with this input). */
  static ConversationInput ofStore(Path shown, String format, StoredConversation c) {
    try {
      return new ConversationInput(shown, format, List.of(activeView(shown, c, List.of())), c);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private static ImportedConversation activeView(
      Path shown, StoredConversation c, List<String> problems) {
    Path name = shown.getFileName();
    return new ImportedConversation(
        name == null ? shown.toString() : name.toString(),
        c.activeMessages(),
        Map.of("view", c.activeView().id()),
        List.of(),
        problems);
  }

  /** An open directory's setting, or a read-only directory's snapshot of it. */
  Optional<String> setting(String key) {
    if (store != null) {
      return store.settings().get(key);
    }
    return Optional.ofNullable(storeSettings.get(key));
  }

  /** Closes the conversation directory, if one is open. */
  @Override
  public void close() {
    if (store != null) {
      store.close();
    }
  }

  /**
   * Reads the directory in place, read-only (no lock, nothing created or repaired), keeps a
   * snapshot of its settings and closes it. What a crash left that a writing open would repair is a
   * problem.
   */
  private static ConversationInput readInPlace(Path dir) {
    try (StoredConversation c = StoredConversation.openReadOnly(dir)) {
      return new ConversationInput(
          dir,
          STORE_FORMAT,
          List.of(activeView(dir, c, c.readOnlyProblems())),
          null,
          dir,
          new LinkedHashMap<>(c.settings().asMap()));
    }
  }

  /**
   * What the import found broken and skipped or repaired, each prefixed with the conversation's
   * name when the source holds several.
   */
  List<String> problems() {
    return prefixed(ImportedConversation::problems);
  }

  /**
   * How the import mapped the source where it is not one to one, prefixed like {@link #problems}.
   */
  List<String> notes() {
    return prefixed(ImportedConversation::notes);
  }

  /** Each conversation's lines, prefixed with its name when the source holds several. */
  private List<String> prefixed(Function<ImportedConversation, List<String>> lines) {
    List<String> out = new ArrayList<>();
    for (ImportedConversation c : conversations) {
      for (String line : lines.apply(c)) {
        out.add(conversations.size() > 1 ? c.name() + ": " + line : line);
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
      String model = RecordedConversation.recordedModel(c.messages());
      if (model != null) {
        return model;
      }
    }
    return null;
  }
}
