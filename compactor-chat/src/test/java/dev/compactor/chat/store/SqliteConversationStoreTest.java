package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SqliteConversationStoreTest extends ConversationStoreContract {
  @TempDir Path dir;

  @Override
  protected ConversationStore openStore() {
    return ConversationStore.open("sqlite:" + dir.resolve("app.db"));
  }

  @Test
  void sharesTheFileOfAChatStore() {
    Path file = dir.resolve("shared.db");
    try (ChatStore chats = ChatStores.open(file.toString());
        ConversationStore conversations = ConversationStore.open(file.toString())) {
      conversations.conversation("c").append(dev.compactor.core.message.Message.user("hi"));
      assertThat(conversations.ids()).containsExactly("c");
      assertThat(chats.describe()).isEqualTo(file.toAbsolutePath().toString());
    }
    // reopening both migrates nothing twice
    try (ChatStore chats = ChatStores.open(file.toString());
        ConversationStore conversations = ConversationStore.open(file.toString())) {
      assertThat(conversations.conversation("c").master().size()).isEqualTo(1);
    }
  }
}
