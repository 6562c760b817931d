package dev.compactor.cli;

import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatStores;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --db} of the commands on the chats' database ({@code keys}, {@code task}): a SQLite file
 * or a PostgreSQL URL, else the default SQLite file of the user's data directory.
 */
final class ChatDatabaseOption {
  @Option(
      names = "--db",
      paramLabel = "URL",
      description = {
        "The chats' database: a SQLite file path or sqlite:PATH (default"
            + " $XDG_DATA_HOME/compactor/chats.db, else ~/.local/share/compactor/chats.db), or a"
            + " PostgreSQL URL: postgresql://user@host/db or jdbc:postgresql://host/db?user=…"
            + " (currentSchema=S picks the schema). Other URLs are refused."
      })
  String db;

  /** {@code --db}, else the default SQLite file of the data directory that {@code env} names. */
  String where(Map<String, String> env) {
    return db != null
        ? db
        : ChatStores.defaultSqliteFile(env, System.getProperty("user.home")).toString();
  }

  /** The store, created or migrated as needed. */
  ChatStore open(Map<String, String> env) {
    return ChatStores.open(where(env));
  }

  /** The store, for reading only: nothing is created, migrated or written. */
  ChatStore openReadOnly(Map<String, String> env) {
    return ChatStores.openReadOnly(where(env));
  }
}
