package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.testkit.TestPostgres;
import java.nio.file.Path;
import java.util.Map;
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
    assertThat(PostgresChatStore.redact("jdbc:postgresql://h/db?user=u&password=s3cret&x=1"))
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
