package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.auth.NewApiKey;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteKeyStoreTest extends KeyStoreContract {
  @TempDir Path dir;
  private SqliteChatStore store;

  @BeforeEach
  void open() {
    store = SqliteChatStore.open(dir.resolve("chats.db"));
  }

  @AfterEach
  void close() {
    store.close();
  }

  @Override
  protected JdbcChatStore store() {
    return store;
  }

  @Override
  protected ChatStore reopen() {
    store.close();
    store = SqliteChatStore.open(dir.resolve("chats.db"));
    return store;
  }

  @Override
  protected Connection rawConnection() throws SQLException {
    return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("chats.db"));
  }

  @Test
  void readOnlyStore_listsAndAuthenticates_withoutWriting_andRefusesToCreate() throws Exception {
    NewApiKey k = store.keys(clock).create("acme");
    store.close();
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
