package dev.compactor.chat.store;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opens a {@link ChatStore} from one string, as the CLI's {@code --db} and service configuration
 * give it:
 *
 * <ul>
 *   <li>{@code postgresql://user:password@host:port/db?currentSchema=s} or {@code postgres://…}
 *       (libpq URI) — PostgreSQL;
 *   <li>{@code jdbc:postgresql://host:port/db?user=…&currentSchema=s} — PostgreSQL;
 *   <li>{@code sqlite:PATH}, {@code jdbc:sqlite:PATH} or a plain file path ({@code ~/} expanded) —
 *       SQLite.
 * </ul>
 *
 * Anything else is refused rather than taken as a file name: another scheme ({@code
 * jdbc:mysql://…}, {@code http://…}, {@code user:password@host}) and text with an empty path
 * segment ({@code postgres//host/db}, a URL missing its colon). Error messages never show a
 * password.
 *
 * <p>{@code currentSchema} names the PostgreSQL schema to use (created when missing; default {@code
 * public}).
 */
public final class ChatStores {
  private ChatStores() {}

  /** The file name of the default SQLite database. */
  public static final String DEFAULT_FILE = "chats.db";

  /**
   * Opens the store {@code db} names.
   *
   * @throws IllegalArgumentException when {@code db} is blank, a malformed URL, or neither a file
   *     path nor a SQLite or PostgreSQL URL
   * @throws ChatStoreException when the database cannot be opened or migrated
   */
  public static ChatStore open(String db) {
    return open(db, "database", SqliteChatStore::open, PostgresChatStore::open);
  }

  /** How a store opens a PostgreSQL database. */
  @FunctionalInterface
  public interface PostgresOpener<T> {
    T open(String jdbcUrl, Properties properties, String schema);
  }

  /**
   * Opens the database {@code db} names, as {@code --db} gives it, with the store's own openers: a
   * PostgreSQL URL ({@link #postgres}) with {@code postgres}, anything else as a SQLite file
   * ({@link #sqliteFile}) with {@code sqlite}.
   *
   * @param what the database, as the error for a blank {@code db} names it
   * @throws IllegalArgumentException when {@code db} is blank, a malformed URL, or neither a file
   *     path nor a SQLite or PostgreSQL URL
   */
  public static <T> T open(
      String db, String what, Function<Path, T> sqlite, PostgresOpener<T> postgres) {
    if (db == null || db.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
    String s = db.strip();
    Optional<PostgresTarget> pg = postgres(s);
    if (pg.isPresent()) {
      return postgres.open(pg.get().jdbcUrl(), pg.get().properties(), pg.get().schema());
    }
    return sqlite.apply(sqliteFile(s));
  }

  /**
   * A PostgreSQL database as a store opens it: the JDBC URL, the driver properties ({@code user}
   * and {@code password} of a libpq URI) and the schema ({@code currentSchema}, or null).
   */
  public record PostgresTarget(String jdbcUrl, Properties properties, String schema) {}

  /**
   * The PostgreSQL database {@code db} names, when it is a libpq URI ({@code postgresql://…},
   * {@code postgres://…}) or a {@code jdbc:postgresql:} URL; empty for anything else.
   *
   * @throws IllegalArgumentException when it is a malformed PostgreSQL URL (password hidden)
   */
  public static Optional<PostgresTarget> postgres(String db) {
    String s = db.strip();
    if (s.startsWith("postgresql://") || s.startsWith("postgres://")) {
      return Optional.of(libpqUri(s));
    }
    if (s.startsWith("jdbc:postgresql:")) {
      return Optional.of(
          new PostgresTarget(s, new Properties(), queryParameter(s, "currentSchema")));
    }
    return Optional.empty();
  }

  /**
   * Opens the store {@code db} names for reading only: a SQLite file must exist and is neither
   * created, migrated nor written. A PostgreSQL database is opened as by {@link #open} (a server's
   * files are not the caller's to protect; its schema is migrated when needed).
   *
   * @throws IllegalArgumentException as {@link #open}
   * @throws ChatStoreException when the database does not exist or cannot be opened
   */
  public static ChatStore openReadOnly(String db) {
    if (db == null || db.isBlank()) {
      throw new IllegalArgumentException("database must not be blank");
    }
    String s = db.strip();
    if (s.startsWith("postgresql://")
        || s.startsWith("postgres://")
        || s.startsWith("jdbc:postgresql:")) {
      return open(s);
    }
    return SqliteChatStore.openReadOnly(sqliteFile(s));
  }

  /**
   * The SQLite file {@code db} names: {@code sqlite:PATH}, {@code jdbc:sqlite:PATH} or a plain path
   * ({@code ~/} expanded).
   *
   * @throws IllegalArgumentException when {@code db} is a URL of another kind or looks like a
   *     mistyped URL, naming it (password hidden)
   */
  public static Path sqliteFile(String db) {
    String s = db.strip();
    for (String prefix : new String[] {"jdbc:sqlite:", "sqlite:"}) {
      if (s.startsWith(prefix)) {
        String path = s.substring(prefix.length());
        if (path.isBlank() || path.startsWith("//")) {
          throw new IllegalArgumentException(
              "database "
                  + StoreDatabases.redact(s)
                  + ": "
                  + prefix
                  + " must be followed by a file path (e.g. "
                  + prefix
                  + "/var/lib/compactor/chats.db)");
        }
        return expandHome(path);
      }
    }
    Matcher scheme = SCHEME.matcher(s);
    if (scheme.lookingAt()) {
      throw new IllegalArgumentException(
          "database "
              + StoreDatabases.redact(s)
              + ": \""
              + scheme.group(1)
              + ":\" is not a supported kind of database; give a SQLite file path,"
              + " sqlite:PATH, or a PostgreSQL URL (postgresql://user@host/db or"
              + " jdbc:postgresql://host/db)");
    }
    if (s.indexOf("//", 1) >= 0) {
      throw new IllegalArgumentException(
          "database "
              + StoreDatabases.redact(s)
              + " looks like a mistyped URL (an empty path segment, \"//\"); give a SQLite file"
              + " path, sqlite:PATH, or a PostgreSQL URL (postgresql://user@host/db)");
    }
    return expandHome(s);
  }

  /**
   * A scheme-like prefix: two or more characters before a colon, so a Windows drive letter ({@code
   * C:\\}) is still a path.
   */
  private static final Pattern SCHEME =
      Pattern.compile("((?:jdbc:)?[A-Za-z][A-Za-z0-9+.\\-]+):"); // jdbc:mysql: whole

  /**
   * The default SQLite file in the user's data directory: {@code
   * $XDG_DATA_HOME/compactor/chats.db}, else {@code ~/.local/share/compactor/chats.db}.
   *
   * @param env the environment (e.g. {@code System.getenv()})
   * @param home the user's home directory (e.g. {@code System.getProperty("user.home")})
   */
  public static Path defaultSqliteFile(Map<String, String> env, String home) {
    String xdg = env.get("XDG_DATA_HOME");
    Path base =
        xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()
            ? Path.of(xdg)
            : Path.of(home, ".local", "share");
    return base.resolve("compactor").resolve(DEFAULT_FILE);
  }

  private static PostgresTarget libpqUri(String s) {
    URI uri;
    try {
      uri = new URI(s);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "malformed PostgreSQL URL " + StoreDatabases.redact(s) + ": " + e.getReason(), e);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("PostgreSQL URL has no host: " + redactUserInfo(uri));
    }
    Properties props = new Properties();
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      props.setProperty("user", decode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
      if (colon >= 0) {
        props.setProperty("password", decode(userInfo.substring(colon + 1)));
      }
    }
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    String jdbc =
        "jdbc:postgresql://"
            + uri.getHost()
            + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
            + path
            + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    return new PostgresTarget(jdbc, props, queryParameter(jdbc, "currentSchema"));
  }

  private static String redactUserInfo(URI uri) {
    return uri.getRawUserInfo() == null
        ? uri.toString()
        : uri.toString().replace(uri.getRawUserInfo(), "***");
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  static String queryParameter(String url, String name) {
    int q = url.indexOf('?');
    if (q < 0) {
      return null;
    }
    for (String pair : url.substring(q + 1).split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0 && pair.substring(0, eq).equals(name)) {
        return decode(pair.substring(eq + 1));
      }
    }
    return null;
  }

  private static Path expandHome(String path) {
    if (path.equals("~") || path.startsWith("~/")) {
      return Path.of(System.getProperty("user.home") + path.substring(1));
    }
    return Path.of(path);
  }
}
