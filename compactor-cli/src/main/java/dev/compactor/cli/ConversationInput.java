package dev.compactor.cli;

import dev.compactor.core.CompactorException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.log.imports.ImportResult;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.imports.Importers;
import dev.compactor.log.store.LogFormatException;
import dev.compactor.log.store.StoredConversation;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

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
    Path path,
    String format,
    List<ImportedConversation> conversations,
    Path storeDir,
    Map<String, String> storeSettings) {

  static final String STORE_FORMAT = "compactor-store";

  ConversationInput(
      Path path, String format, List<ImportedConversation> conversations, Path storeDir) {
    this(path, format, conversations, storeDir, Map.of());
  }

  /** Reads {@code path}; {@code format} null means detect. */
  static ConversationInput read(Path path, String format) {
    return read(path, format, false);
  }

  /**
   * Reads {@code path}; {@code format} null means detect. With {@code readOnly}, a conversation
   * directory is read without changing anything in it — no lock file, no repair of a torn last line
   * (it is reported as a problem instead), no new directories — so a read-only directory can be
   * inspected: its files are read from a private copy, which is opened and then deleted.
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
      return readOnly ? readSnapshot(path) : readStore(path, path, List.of());
    }
    ImportResult r = format == null ? Importers.read(path) : Importers.read(path, format);
    return new ConversationInput(path, r.format(), r.conversations(), null);
  }

  private static ConversationInput readStore(Path shown, Path dir, List<String> problems) {
    try (StoredConversation c = StoredConversation.open(dir)) {
      ImportedConversation ic =
          new ImportedConversation(
              shown.getFileName() == null ? shown.toString() : shown.getFileName().toString(),
              c.activeMessages(),
              java.util.Map.of("view", c.activeView().id()),
              List.of(),
              problems);
      return new ConversationInput(
          shown, STORE_FORMAT, List.of(ic), shown, new LinkedHashMap<>(c.settings().asMap()));
    }
  }

  /** Opens a copy of the directory's files (not its saved tool outputs), then deletes it. */
  private static ConversationInput readSnapshot(Path dir) {
    Path copy = null;
    try {
      copy = Files.createTempDirectory("compactor-read-");
      Map<Path, Long> sizes = new LinkedHashMap<>();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : (Iterable<Path>) files::iterator) {
          Path rel = dir.relativize(f);
          if (rel.toString().isEmpty()
              || rel.startsWith("tool-outputs")
              || rel.toString().equals(".lock")) {
            continue;
          }
          Path target = copy.resolve(rel.toString());
          if (Files.isDirectory(f)) {
            Files.createDirectories(target);
          } else {
            Files.copy(f, target);
            sizes.put(rel, Files.size(target));
          }
        }
      }
      ConversationInput opened;
      try {
        opened = readStore(dir, copy, List.of());
      } catch (LogFormatException e) {
        // Name the file of the directory, not of the private copy.
        Path file = dir.resolve(copy.relativize(e.file()).toString());
        String detail = e.getMessage().substring(e.getMessage().indexOf(": ") + 2);
        throw new LogFormatException(file, e.line(), e.byteOffset(), detail, e);
      } catch (CompactorException e) {
        throw new CompactorException(e.getMessage().replace(copy.toString(), dir.toString()), e);
      }
      List<String> problems = new ArrayList<>();
      for (Map.Entry<Path, Long> e : sizes.entrySet()) {
        Path now = copy.resolve(e.getKey().toString());
        long size = Files.exists(now) ? Files.size(now) : -1;
        if (size != e.getValue()) {
          problems.add(
              e.getKey()
                  + ": its last line is incomplete or lacks its line break (a write cut short);"
                  + " read without it here, left as it is, and repaired by the next command that"
                  + " writes to the conversation");
        }
      }
      if (problems.isEmpty()) {
        return opened;
      }
      ImportedConversation c = opened.conversations().get(0);
      return new ConversationInput(
          dir,
          STORE_FORMAT,
          List.of(
              new ImportedConversation(c.name(), c.messages(), c.metadata(), c.notes(), problems)),
          dir,
          opened.storeSettings());
    } catch (IOException e) {
      throw new CompactorException("cannot read " + dir + ": " + e.getMessage(), e);
    } finally {
      if (copy != null) {
        deleteQuietly(copy);
      }
    }
  }

  private static void deleteQuietly(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary directory; nothing to report
    }
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
