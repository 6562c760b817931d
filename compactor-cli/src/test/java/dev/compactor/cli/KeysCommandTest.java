package dev.compactor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatStores;
import dev.compactor.testkit.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code compactor keys create/list/revoke}, in-process, on SQLite files and PostgreSQL. */
class KeysCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String KEY = "cpk_[a-z2-7]{8}_[a-z2-7]{52}";

  @TempDir Path dir;

  private static String created(CliRunner r) {
    assertThat(r.exitCode()).as(r.err()).isZero();
    String key = r.out().strip();
    assertThat(key).matches(KEY);
    return key;
  }

  @Test
  void create_printsTheKeyOnce_andSaysSo_andTheKeyAuthenticatesItsTenant() throws Exception {
    String db = dir.resolve("chats.db").toString();
    CliRunner r = CliRunner.run("keys", "create", "--tenant", "acme", "--db", db);

    String key = created(r);
    assertThat(r.out().lines()).hasSize(1);
    assertThat(r.err())
        .contains("created API key " + key.substring(0, 12) + " for tenant acme")
        .contains("shown only this once")
        .doesNotContain(key);
    try (ChatStore store = ChatStores.open(db)) {
      assertThat(store.keys().authenticate(key)).contains("acme");
    }

    CliRunner list = CliRunner.run("keys", "list", "--db", db);
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertThat(list.out()).contains("PREFIX", "TENANT", "LAST USED", key.substring(0, 12), "acme");
    assertThat(list.out()).contains("active").doesNotContain(key.substring(12));
  }

  @Test
  void theDatabaseFiles_neverHoldTheKey() throws Exception {
    String db = dir.resolve("chats.db").toString();
    String key = created(CliRunner.run("keys", "create", "--tenant", "acme", "--db", db));
    String secret = key.substring(13);
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1))
            .as(f.toString())
            .doesNotContain(secret);
      }
    }
  }

  @Test
  void createAndList_asJson() throws Exception {
    String db = dir.resolve("chats.db").toString();
    CliRunner r = CliRunner.run("keys", "create", "--tenant", "globex", "--db", db, "--json");
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode made = JSON.readTree(r.out());
    assertThat(made.get("key").asText()).matches(KEY).startsWith(made.get("prefix").asText());
    assertThat(made.get("tenant").asText()).isEqualTo("globex");

    CliRunner list = CliRunner.run("keys", "list", "--db", db, "--json");
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertThat(list.out()).doesNotContain(made.get("key").asText());
    JsonNode k = JSON.readTree(list.out()).get("keys").get(0);
    assertThat(k.get("prefix").asText()).isEqualTo(made.get("prefix").asText());
    assertThat(k.get("tenant").asText()).isEqualTo("globex");
    assertThat(k.get("created_at").asText()).isEqualTo(made.get("created_at").asText());
    assertThat(k.get("last_used_at").isNull()).isTrue();
    assertThat(k.get("revoked_at").isNull()).isTrue();
    assertThat(k.get("active").asBoolean()).isTrue();
    assertThat(k.has("key")).isFalse();
    List<String> fields = new ArrayList<>();
    k.fieldNames().forEachRemaining(fields::add);
    assertThat(fields)
        .containsExactly("prefix", "tenant", "created_at", "last_used_at", "revoked_at", "active");
    List<String> madeFields = new ArrayList<>();
    made.fieldNames().forEachRemaining(madeFields::add);
    assertThat(madeFields).containsExactly("key", "prefix", "tenant", "created_at");
  }

  @Test
  void revoke_byPrefix_stopsTheKey_twiceIsFine_unknownExits1_malformedExits2() throws Exception {
    String db = dir.resolve("chats.db").toString();
    String key = created(CliRunner.run("keys", "create", "--tenant", "acme", "--db", db));
    String prefix = key.substring(0, 12);

    CliRunner r = CliRunner.run("keys", "revoke", prefix, "--db", db);
    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.out()).contains("revoked API key " + prefix + " (tenant acme)");
    try (ChatStore store = ChatStores.open(db)) {
      assertThat(store.keys().authenticate(key)).isEmpty();
    }
    CliRunner again = CliRunner.run("keys", "revoke", prefix, "--db", db);
    assertThat(again.exitCode()).isZero();
    assertThat(again.out()).contains("already revoked");
    assertThat(CliRunner.run("keys", "list", "--db", db).out()).contains("revoked 20");

    CliRunner unknown = CliRunner.run("keys", "revoke", "cpk_zzzzzzzz", "--db", db);
    assertThat(unknown.exitCode()).isEqualTo(KeysCommand.EXIT_NO_SUCH_KEY);
    assertThat(unknown.err()).contains("no API key cpk_zzzzzzzz");

    String typo = key + "x";
    CliRunner bad = CliRunner.run("keys", "revoke", typo, "--db", db);
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("is not a key prefix").doesNotContain(key.substring(12));
  }

  @Test
  void create_invalidTenant_isAUsageErrorNamingIt_andCreatesNothing() {
    Path db = dir.resolve("chats.db");
    CliRunner r = CliRunner.run("keys", "create", "--tenant", "acme corp", "--db", db.toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("--tenant").contains("\"acme corp\"");
    assertThat(r.out()).isEmpty();
    assertThat(db).doesNotExist();
  }

  @Test
  void withoutDb_theDefaultFileOfTheDataDirectoryIsUsed() {
    Path data = dir.resolve("data");
    Map<String, String> env = Map.of("XDG_DATA_HOME", data.toString());
    String key = created(CliRunner.runWithEnv(env, "keys", "create", "--tenant", "acme"));
    assertThat(data.resolve("compactor").resolve("chats.db")).exists();
    assertThat(CliRunner.runWithEnv(env, "keys", "list").out()).contains(key.substring(0, 12));
  }

  @Test
  void list_readsOnly_aMissingDatabaseIsAnError_anEmptyOneSaysSo() throws Exception {
    Path missing = dir.resolve("none.db");
    CliRunner r = CliRunner.run("keys", "list", "--db", missing.toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("no chat database at").contains("none.db");
    assertThat(missing).doesNotExist();

    CliRunner json = CliRunner.run("keys", "list", "--db", missing.toString(), "--json");
    assertThat(JSON.readTree(json.out()).at("/error/message").asText())
        .contains("no chat database");

    Path empty = dir.resolve("empty.db");
    ChatStores.open(empty.toString()).close();
    CliRunner none = CliRunner.run("keys", "list", "--db", empty.toString());
    assertThat(none.exitCode()).isZero();
    assertThat(none.out()).contains("no API keys in");
  }

  @Test
  void postgresql_createListRevoke() throws Exception {
    String schema = TestPostgres.newSchema("keys_cli");
    String db = TestPostgres.server().uri(schema);
    try {
      String key = created(CliRunner.run("keys", "create", "--tenant", "acme", "--db", db));
      CliRunner list = CliRunner.run("keys", "list", "--db", db, "--json");
      assertThat(list.exitCode()).as(list.err()).isZero();
      assertThat(JSON.readTree(list.out()).at("/keys/0/prefix").asText())
          .isEqualTo(key.substring(0, 12));
      assertThat(CliRunner.run("keys", "revoke", key.substring(0, 12), "--db", db).exitCode())
          .isZero();
      try (ChatStore store = ChatStores.open(TestPostgres.server().jdbcUrl(schema))) {
        assertThat(store.keys().authenticate(key)).isEmpty();
        assertThat(store.keys().list()).hasSize(1);
      }
    } finally {
      TestPostgres.dropSchema(schema);
    }
  }

  @Test
  void help_listsTheExitCodes() {
    assertThat(CliRunner.run("keys", "revoke", "--help").out())
        .contains("Exit codes:")
        .contains("no key has that prefix");
  }
}
