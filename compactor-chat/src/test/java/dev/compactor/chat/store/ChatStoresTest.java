package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.compactor.testkit.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChatStoresTest {
  @TempDir Path dir;

  @Test
  void plainPathAndJdbcSqliteUrl_openSqlite() {
    try (ChatStore s = ChatStores.open(dir.resolve("a.db").toString())) {
      assertThat(s).isInstanceOf(SqliteChatStore.class);
    }
    try (ChatStore s = ChatStores.open("jdbc:sqlite:" + dir.resolve("b.db"))) {
      assertThat(((SqliteChatStore) s).file()).isEqualTo(dir.resolve("b.db"));
    }
  }

  @Test
  void libpqUriAndJdbcUrl_openPostgres_inTheSchemaTheyName() {
    String schema = TestPostgres.newSchema("chat_test");
    try {
      try (ChatStore s = ChatStores.open(TestPostgres.server().uri(schema))) {
        assertThat(((PostgresChatStore) s).schema()).isEqualTo(schema);
      }
      try (ChatStore s = ChatStores.open(TestPostgres.server().jdbcUrl(schema))) {
        assertThat(s.describe()).contains(schema);
      }
    } finally {
      TestPostgres.dropSchema(schema);
    }
  }

  @Test
  void passwordsNeverAppearInDescriptions() {
    assertThat(StoreDatabases.redact("jdbc:postgresql://h/db?user=u&password=s3cret&x=1"))
        .isEqualTo("jdbc:postgresql://h/db?user=u&password=***&x=1");
  }

  @Test
  void blankOrMalformed_isRejected() {
    assertThatThrownBy(() -> ChatStores.open(" ")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ChatStores.open("postgresql:///nohost"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no host");
  }

  @Test
  void sqlitePrefix_opensTheFileItNames() {
    try (ChatStore s = ChatStores.open("sqlite:" + dir.resolve("c.db"))) {
      assertThat(((SqliteChatStore) s).file()).isEqualTo(dir.resolve("c.db"));
    }
  }

  @Test
  void otherUrlsAndMistypedUrls_areRefused_andCreateNoFile() throws IOException {
    Path cwd = Path.of("").toAbsolutePath();
    Set<Path> before = list(cwd);
    assertThatThrownBy(() -> ChatStores.open("jdbc:mysql://u:s3cret@127.0.0.1/db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"jdbc:mysql:\" is not a supported kind of database")
        .hasMessageContaining("postgresql://")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> ChatStores.open("postgres//postgres:s3cret@127.0.0.1/test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mistyped URL")
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> ChatStores.open("user:s3cret@host/db"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("s3cret");
    assertThatThrownBy(() -> ChatStores.open("sqlite:"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file path");
    assertThat(list(cwd)).as("no file created").isEqualTo(before);
    assertThat(dir.resolve("x:y")).doesNotExist();
  }

  @Test
  void refusedPostgresConnection_failsAtOnce_namingTheServer() throws IOException {
    int port;
    try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = ss.getLocalPort();
    }
    int closed = port;
    long start = System.nanoTime();
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () ->
            assertThatThrownBy(
                    () ->
                        ChatStores.open("postgresql://postgres:s3cret@127.0.0.1:" + closed + "/x"))
                .isInstanceOf(ChatStoreException.class)
                .hasMessageContaining("cannot connect")
                .hasMessageContaining("127.0.0.1:" + closed)
                .hasMessageNotContaining("s3cret"));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .as("not Hikari's 30 s wait for a first connection")
        .isLessThan(Duration.ofSeconds(10));
  }

  private static Set<Path> list(Path d) throws IOException {
    try (Stream<Path> s = Files.list(d)) {
      return s.collect(Collectors.toSet());
    }
  }

  @Test
  void defaultSqliteFile_isInTheUsersDataDirectory() {
    assertThat(ChatStores.defaultSqliteFile(Map.of("XDG_DATA_HOME", "/data"), "/home/u"))
        .isEqualTo(Path.of("/data/compactor/chats.db"));
    assertThat(ChatStores.defaultSqliteFile(Map.of(), "/home/u"))
        .isEqualTo(Path.of("/home/u/.local/share/compactor/chats.db"));
    assertThat(ChatStores.defaultSqliteFile(Map.of("XDG_DATA_HOME", "relative"), "/home/u"))
        .as("a relative XDG_DATA_HOME is ignored, as the specification says")
        .isEqualTo(Path.of("/home/u/.local/share/compactor/chats.db"));
  }
}
