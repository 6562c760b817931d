package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

      assertThatThrownBy(
              () ->
                  store()
                      .update(
                          k,
                          chat -> {
                            // Meanwhile another process appends to the same chat.
                            other.update(k, c2 -> append(k, c2, "from other"));
                            return append(k, chat, "mine");
                          }))
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
      assertThatThrownBy(
              () ->
                  store()
                      .update(
                          k,
                          chat -> {
                            other.update(k, c2 -> append(k, c2, "other was first"));
                            return append(k, chat, "mine");
                          }))
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

  private static Outcome<Void> append(ChatKey k, ChatSnapshot chat, String text) {
    ChatRecord r = chat.exists() ? chat.record() : ChatRecord.fresh(k, Instant.EPOCH);
    List<Message> h = new ArrayList<>(chat.messages());
    h.add(Message.builder(Role.USER).content(text).build());
    return Outcome.of(new ChatUpdate(r, h, List.of(), List.of()), null);
  }
}
