package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.auth.NewApiKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteKeyStoreTest extends KeyStoreContract {
  @TempDir Path dir;

  @Override
  protected JdbcChatStore open() {
    return SqliteChatStore.open(dir.resolve("chats.db"));
  }

  @Override
  protected Connection rawConnection() throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("chats.db"));
  }

  @Test
  void readOnlyStore_listsAndAuthenticates_withoutWriting_andRefusesToCreate() throws Exception {
    NewApiKey k = store().keys(clock).create("acme");
    closeStore();
    try (SqliteChatStore ro = SqliteChatStore.openReadOnly(dir.resolve("chats.db"))) {
      assertThat(ro.keys(clock).list()).containsExactly(k.info());
      assertThat(ro.keys(clock).authenticate(k.key())).contains("acme");
      assertThat(ro.keys(clock).find(k.info().id()).orElseThrow().lastUsedAt()).isNull();
      assertThatThrownBy(() -> ro.keys(clock).create("acme"))
          .isInstanceOf(ChatStoreException.class)
          .hasMessageContaining("creating an API key for tenant acme");
    }
  }
}
