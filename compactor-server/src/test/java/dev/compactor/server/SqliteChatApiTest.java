package dev.compactor.server;

import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.ChatStores;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The chat-task API on the embedded SQLite store. */
class SqliteChatApiTest extends ChatApiContract {
  @TempDir Path dir;

  @Override
  ChatStore openStore() {
    return ChatStores.open(dir.resolve("chats.db").toString());
  }
}
