package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.base.ChatTaskException;
import dev.compactor.chat.store.ChatWork.Outcome;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteChatStoreTest extends ChatStoreContract<SqliteChatStore> {
  @TempDir Path dir;

  @Override
  protected SqliteChatStore open() {
    return SqliteChatStore.open(dir.resolve("nested/dir/chats.db"));
  }

  @Test
  void open_createsMissingDirectories_andDescribesTheFile() {
    assertThat(store().describe()).endsWith("chats.db");
    assertThat(dir.resolve("nested/dir/chats.db")).exists();
  }

  @Test
  void twoProcessesOnOneFile_laterWriterGetsConflict_andStoresNothing() {
    ChatKey k = new ChatKey("t", "shared");
    try (SqliteChatStore other = SqliteChatStore.open(dir.resolve("nested/dir/chats.db"))) {
      store().update(k, chat -> append(k, chat, "first"));

      assertThatUpdate(
              k,
              chat -> {
                // Meanwhile another process appends to the same chat.
                other.update(k, c2 -> append(k, c2, "from other"));
                return append(k, chat, "mine");
              })
          .isInstanceOf(ChatTaskException.class)
          .extracting(e -> ((ChatTaskException) e).code())
          .isEqualTo(ChatTaskException.Code.CONFLICT);

      assertThat(store().find(k).orElseThrow().messages())
          .extracting(Message::content)
          .containsExactly("first", "from other");
    }
  }

  @Test
  void twoProcessesCreatingOneChat_laterCreatorGetsConflict() {
    ChatKey k = new ChatKey("t", "born-twice");
    try (SqliteChatStore other = SqliteChatStore.open(dir.resolve("nested/dir/chats.db"))) {
      assertThatUpdate(
              k,
              chat -> {
                other.update(k, c2 -> append(k, c2, "other was first"));
                return append(k, chat, "mine");
              })
          .isInstanceOf(ChatTaskException.class)
          .hasMessageContaining("another process");
      assertThat(store().find(k).orElseThrow().messages())
          .extracting(Message::content)
          .containsExactly("other was first");
    }
  }

  @Test
  void locks_areDroppedWhenNobodyHoldsThem() {
    store().update(new ChatKey("t", "a"), chat -> Outcome.unchanged(null));
    assertThat(store().lockEntries()).isZero();
  }

  @Test
  void aVersion1Database_isMigrated_keepsItsChats_andGainsListingAndKeys() throws Exception {
    Path old = version1Database("v1.db");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + old);
        java.sql.Statement st = c.createStatement()) {
      st.execute(
          "INSERT INTO chats (tenant, chat_id, interactions, version, created_at, updated_at)"
              + " VALUES ('t', 'before', 3, 1, '2025-01-01T00:00:00.000000000Z',"
              + " '2025-01-02T00:00:00.000000000Z')");
    }
    try (SqliteChatStore migrated = SqliteChatStore.open(old)) {
      ChatPage page = migrated.listChats("t", null, 10);
      assertThat(page.chats()).hasSize(1);
      assertThat(page.chats().get(0).record().interactions()).isEqualTo(3);
      assertThat(page.chats().get(0).record().updatedAt())
          .isEqualTo(Instant.parse("2025-01-02T00:00:00Z"));
      assertThat(migrated.keys().authenticate(migrated.keys().create("t").key())).contains("t");
    }
  }

  @Test
  void readOnlyVersion1Database_hasNoKeys_andIsNotMigrated() throws Exception {
    Path old = version1Database("v1-ro.db");
    try (SqliteChatStore ro = SqliteChatStore.openReadOnly(old)) {
      assertThat(ro.keys().list()).isEmpty();
      assertThat(ro.keys().anyActive()).isFalse();
      assertThat(ro.keys().authenticate("cpk_aaaaaaaa_" + "a".repeat(52))).isEmpty();
    }
    try (SqliteChatStore rw = SqliteChatStore.open(old)) {
      assertThat(rw.keys().list()).isEmpty();
    }
  }

  @Override
  protected void refuseChatRowDeletes() throws Exception {
    try (java.sql.Connection c =
            java.sql.DriverManager.getConnection(
                "jdbc:sqlite:" + dir.resolve("nested/dir/chats.db"));
        java.sql.Statement st = c.createStatement()) {
      st.execute(
          "CREATE TRIGGER refuse_chat_delete BEFORE DELETE ON chats"
              + " BEGIN SELECT RAISE(ABORT, 'refused by test trigger'); END");
    }
  }

  private static Outcome<Void> append(ChatKey k, ChatSnapshot chat, String text) {
    ChatRecord r = chat.exists() ? chat.record() : ChatRecord.fresh(k, Instant.EPOCH);
    List<Message> h = new ArrayList<>(chat.messages());
    h.add(Message.builder(Role.USER).content(text).build());
    return Outcome.of(new ChatUpdate(r, h, List.of(), List.of()), null);
  }

  /** A new database file {@code name} in the temporary directory, migrated to version 1 only. */
  private Path version1Database(String name) {
    Path file = dir.resolve(name);
    org.flywaydb.core.Flyway.configure(getClass().getClassLoader())
        .dataSource("jdbc:sqlite:" + file, null, null)
        .locations(Migrations.LOCATION + "sqlite")
        .target("1")
        .load()
        .migrate();
    return file;
  }
}
