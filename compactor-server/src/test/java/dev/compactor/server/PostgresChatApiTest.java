package dev.compactor.server;

import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.PostgresChatStore;
import dev.compactor.testkit.TestPostgres;
import org.junit.jupiter.api.AfterEach;

/** The chat-task API on PostgreSQL ({@link TestPostgres}), each test in a fresh schema. */
class PostgresChatApiTest extends ChatApiContract {
  private String schema;

  @Override
  ChatStore openStore() {
    schema = TestPostgres.newSchema("server_api");
    return PostgresChatStore.open(TestPostgres.jdbcUrl(), TestPostgres.properties(), schema);
  }

  @AfterEach
  void dropSchema() {
    TestPostgres.dropSchema(schema);
  }
}
