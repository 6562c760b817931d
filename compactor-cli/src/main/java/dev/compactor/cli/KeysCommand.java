package dev.compactor.cli;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.compactor.chat.auth.ApiKeyInfo;
import dev.compactor.chat.auth.ApiKeys;
import dev.compactor.chat.auth.NewApiKey;
import dev.compactor.chat.auth.TenantNames;
import dev.compactor.chat.store.ChatStore;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code compactor keys}: the API keys of the chat service, kept in the chats' database. A new key
 * is printed once, on standard output; only its hash is stored. Keys are named by their public
 * prefix ({@code cpk_<id>}) everywhere else.
 */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description = {
      "API keys of the chat service (compactor serve): each names a tenant. Kept in the chats'"
          + " database, only as hashes."
    },
    subcommands = {KeysCommand.Create.class, KeysCommand.ListKeys.class, KeysCommand.Revoke.class})
final class KeysCommand implements Runnable {
  @Spec CommandLine.Model.CommandSpec spec;

  @ParentCommand CompactorCommand parent;

  /** Exit code of {@code keys revoke} when no key has the prefix. */
  static final int EXIT_NO_SUCH_KEY = 1;

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** What every keys subcommand has: its command line, the keys command above it, {@code --db}. */
  abstract static class Subcommand implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;
    @ParentCommand KeysCommand keys;
    @Mixin ChatDatabaseOption database = new ChatDatabaseOption();

    /** The environment of the command line ({@code --db}'s default is read from it). */
    Map<String, String> env() {
      return CompactorCommand.envOf(keys == null ? null : keys.parent);
    }

    /** A refused argument, reported as picocli reports its own (the message, then the usage). */
    CommandLine.ParameterException refused(IllegalArgumentException e) {
      return new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private static String instant(Instant t) {
    return t == null ? "-" : t.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * One key as {@code keys list --json} prints it.
   *
   * @param createdAt when the key was created, ISO-8601
   * @param lastUsedAt when it was last used (recorded at most once a minute), or null
   * @param revokedAt when it was revoked, or null
   */
  record KeyJson(
      String prefix,
      String tenant,
      @JsonProperty("created_at") String createdAt,
      @JsonProperty("last_used_at") String lastUsedAt,
      @JsonProperty("revoked_at") String revokedAt,
      boolean active) {
    static KeyJson of(ApiKeyInfo k) {
      return new KeyJson(
          k.prefix(),
          k.tenant(),
          k.createdAt().toString(),
          k.lastUsedAt() == null ? null : k.lastUsedAt().toString(),
          k.revokedAt() == null ? null : k.revokedAt().toString(),
          k.active());
    }
  }

  /** What {@code keys list --json} prints. */
  record KeyList(List<KeyJson> keys) {}

  /**
   * What {@code keys create --json} prints: the key itself, this once.
   *
   * @param createdAt when the key was created, ISO-8601
   */
  record CreatedKey(
      String key, String prefix, String tenant, @JsonProperty("created_at") String createdAt) {}

  private static void print(PrintWriter w, Object json) throws Exception {
    w.println(JSON.writeValueAsString(json));
    w.flush();
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Creates an API key for a tenant and prints it once, on standard output: store it now,"
            + " it cannot be shown again (only its hash is kept)."
      })
  static final class Create extends Subcommand {

    @Option(
        names = "--tenant",
        required = true,
        paramLabel = "T",
        description =
            "The tenant the key names: 1 to "
                + TenantNames.MAX_LENGTH
                + " ASCII letters, digits, '.', '_' or '-', beginning with a letter or digit.")
    String tenant;

    @Option(
        names = "--json",
        description = "Print one JSON object: key, prefix, tenant, created_at.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      try {
        TenantNames.check(tenant, "--tenant");
      } catch (IllegalArgumentException e) {
        throw refused(e);
      }
      try (ChatStore store = database.open(env())) {
        NewApiKey k = store.keys().create(tenant);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
          print(
              out,
              new CreatedKey(
                  k.key(), k.info().prefix(), k.info().tenant(), k.info().createdAt().toString()));
        } else {
          out.println(k.key());
          out.flush();
        }
        PrintWriter err = spec.commandLine().getErr();
        err.println(
            "compactor: created API key "
                + k.info().prefix()
                + " for tenant "
                + k.info().tenant()
                + " in "
                + store.describe()
                + ". The key is shown only this once: store it now (only its hash is kept).");
        err.flush();
        return 0;
      }
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "Lists the API keys: prefix, tenant, created, last used (recorded at most once a minute),"
            + " and whether revoked. Never a key or its hash. Only reads the database."
      })
  static final class ListKeys extends Subcommand {

    @Option(
        names = "--json",
        description =
            "Print one JSON object: {\"keys\": [{prefix, tenant, created_at, last_used_at,"
                + " revoked_at, active}]}.")
    boolean json;

    @Override
    public Integer call() throws Exception {
      List<ApiKeyInfo> all;
      String where;
      try (ChatStore store = database.openReadOnly(env())) {
        all = store.keys().list();
        where = store.describe();
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        print(out, new KeyList(all.stream().map(KeyJson::of).toList()));
        return 0;
      }
      if (all.isEmpty()) {
        out.println("no API keys in " + where);
        out.flush();
        return 0;
      }
      int tenantWidth =
          Math.max(6, all.stream().mapToInt(k -> k.tenant().length()).max().orElse(6));
      String row = "%-12s  %-" + tenantWidth + "s  %-20s  %-20s  %s%n";
      out.printf(row, "PREFIX", "TENANT", "CREATED", "LAST USED", "STATUS");
      for (ApiKeyInfo k : all) {
        out.printf(
            row,
            k.prefix(),
            k.tenant(),
            instant(k.createdAt()),
            instant(k.lastUsedAt()),
            k.active() ? "active" : "revoked " + instant(k.revokedAt()));
      }
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description = {
        "Revokes an API key at once: requests with it are refused from then on. The key is named"
            + " by its prefix as keys list shows it (cpk_<id>)."
      })
  static final class Revoke extends Subcommand {

    @Parameters(
        index = "0",
        paramLabel = "PREFIX",
        description = "The key's prefix, cpk_ followed by 8 characters (see keys list).")
    String prefix;

    @Override
    public Integer call() {
      String id;
      try {
        id = ApiKeys.parseIdOrPrefix(prefix, "PREFIX");
      } catch (IllegalArgumentException e) {
        throw refused(e);
      }
      try (ChatStore store = database.open(env())) {
        Optional<ApiKeyInfo> before = store.keys().find(id);
        Optional<ApiKeyInfo> after = store.keys().revoke(id);
        PrintWriter out = spec.commandLine().getOut();
        if (after.isEmpty()) {
          spec.commandLine()
              .getErr()
              .println(
                  "compactor: no API key "
                      + ApiKeys.prefixOf(id)
                      + " in "
                      + store.describe()
                      + " (keys list shows the keys)");
          spec.commandLine().getErr().flush();
          return EXIT_NO_SUCH_KEY;
        }
        ApiKeyInfo k = after.get();
        boolean already = before.isPresent() && !before.get().active();
        out.println(
            (already ? "API key " + k.prefix() + " was already revoked at " : "revoked API key ")
                + (already ? instant(k.revokedAt()) : k.prefix())
                + " (tenant "
                + k.tenant()
                + ")");
        out.flush();
        return 0;
      }
    }
  }
}
