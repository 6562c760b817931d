package dev.compactor.cli;

import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.log.store.StoredConversation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where {@code compactor chat} keeps its conversations: one conversation directory (the store of
 * {@code compactor-log}: master log, views, journal, settings) per chat, named by the chat, under
 * {@code $XDG_DATA_HOME/compactor/conversations/} (an absolute {@code XDG_DATA_HOME} only), else
 * {@code ~/.local/share/compactor/conversations/}.
 */
final class ChatConversations {
  private ChatConversations() {}

  /** Settings keys a chat keeps in its {@code settings.json}. */
  static final String MODEL_KEY = "chat_model";

  static final String BASE_URL_KEY = "chat_base_url";
  static final String API_KEY = "chat_api";

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  /** The directory holding every chat's conversation directory. */
  static Path root(Map<String, String> env) {
    String xdg = env.get("XDG_DATA_HOME");
    Path base;
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      base = Path.of(xdg);
    } else {
      String home = env.get("HOME");
      base =
          Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"))
              .resolve(".local")
              .resolve("share");
    }
    return base.resolve("compactor").resolve("conversations");
  }

  /** The history file of the line editor (typed lines, shared by every chat). */
  static Path historyFile(Path root) {
    return root.resolveSibling("chat_history");
  }

  /**
   * {@code name} when it can name a conversation directory.
   *
   * @throws InvalidSettingException naming the value and {@code option} otherwise
   */
  static String checkName(String name, String option) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new InvalidSettingException(
          "conversation name",
          name,
          option,
          "must be 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit");
    }
    return name;
  }

  /** Whether {@code dir} holds a conversation. */
  static boolean exists(Path dir) {
    return Files.isRegularFile(dir.resolve("conversation.jsonl"));
  }

  /** A new name, {@code chat-yyyyMMdd-HHmmss} in local time, with {@code -2}, … when taken. */
  static String newName(Path root, Clock clock) {
    String base = "chat-" + STAMP.format(clock.instant().atZone(ZoneId.systemDefault()));
    String name = base;
    for (int i = 2; Files.exists(root.resolve(name)); i++) {
      name = base + "-" + i;
    }
    return name;
  }

  /**
   * One stored chat as {@code --list} shows it.
   *
   * @param updated when its master log last changed
   * @param messages provider-visible messages of the master log
   * @param views views made by compaction (0: never compacted)
   * @param model the model it last talked to, or null
   * @param title the first line of its first user message, shortened, or empty
   */
  record Entry(
      String name,
      Path dir,
      Instant updated,
      int messages,
      int views,
      String model,
      String title) {}

  /** The chats under {@code root}, most recently updated first (empty when there is none). */
  static List<Entry> list(Path root) {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    List<Entry> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(root)) {
      for (Path dir : dirs.sorted().toList()) {
        if (!Files.isDirectory(dir) || !exists(dir)) {
          continue;
        }
        out.add(entry(dir));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + root, e);
    }
    out.sort(Comparator.comparing(Entry::updated).reversed().thenComparing(Entry::name));
    return out;
  }

  private static Entry entry(Path dir) {
    Instant updated;
    try {
      updated = Files.getLastModifiedTime(dir.resolve("conversation.jsonl")).toInstant();
    } catch (IOException e) {
      updated = Instant.EPOCH;
    }
    // Read in place: a chat open in another terminal is listed too.
    try (StoredConversation c = StoredConversation.openReadOnly(dir)) {
      List<Message> all = c.master().messages();
      int visible = 0;
      String title = "";
      for (Message m : all) {
        if (m.uiOnly()) {
          continue;
        }
        visible++;
        if (title.isEmpty()
            && m.role() == Role.USER
            && !m.metadata()
                .extra()
                .containsKey(dev.compactor.core.policy.AutoCompactor.REMINDER_KEY)) {
          title = title(m.content());
        }
      }
      return new Entry(
          dir.getFileName().toString(),
          dir,
          updated,
          visible,
          c.views().size() - 1,
          c.settings().get(MODEL_KEY).orElse(null),
          title);
    } catch (RuntimeException e) {
      return new Entry(
          dir.getFileName().toString(),
          dir,
          updated,
          0,
          0,
          null,
          "(unreadable: " + e.getMessage() + ")");
    }
  }

  private static String title(String content) {
    String line = content.strip().lines().findFirst().orElse("");
    return line.length() <= 60 ? line : line.substring(0, 59) + "…";
  }
}
