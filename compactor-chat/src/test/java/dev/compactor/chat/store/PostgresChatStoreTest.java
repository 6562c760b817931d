package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.base.ChatKey;
import dev.compactor.chat.store.ChatWork.Outcome;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.testkit.TestPostgres;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract against a real PostgreSQL server ({@link TestPostgres}: the local one, or an
 * embedded one), each test in a fresh schema.
 */
class PostgresChatStoreTest extends ChatStoreContract<PostgresChatStore> {
  private String schema;

  @BeforeEach
  void newSchema() {
    schema = TestPostgres.newSchema("chat_test");
  }

  @AfterEach
  void dropSchema() {
    closeStore();
    TestPostgres.dropSchema(schema);
  }

  /** A store in {@code schema} (created when missing). */
  private static PostgresChatStore open(String schema) {
    return PostgresChatStore.open(TestPostgres.jdbcUrl(), TestPostgres.properties(), schema);
  }

  @Override
  protected PostgresChatStore open() {
    return open(schema);
  }

  @Test
  void open_usesTheGivenSchema_andDescribesItWithoutSecrets() {
    assertThat(store().schema()).isEqualTo(schema);
    assertThat(store().describe()).contains(schema).doesNotContain("password");
  }

  @Test
  void open_rejectsSchemaNamesThatAreNotPlainIdentifiers() {
    assertThatThrownBy(() -> open("x; DROP TABLE chats"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plain identifier");
  }

  @Test
  void twoProcesses_fiftyConcurrentUpdatesOfOneChat_queueOnTheRowLock() throws Exception {
    ChatKey k = new ChatKey("t", "across-processes");
    try (PostgresChatStore other = open(schema)) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          ChatStore s = i % 2 == 0 ? store() : other;
          String id = "m" + i;
          futures.add(
              pool.submit(
                  () ->
                      s.update(
                          k,
                          chat -> {
                            ChatRecord r =
                                chat.exists() ? chat.record() : ChatRecord.fresh(k, Instant.EPOCH);
                            List<Message> h = new ArrayList<>(chat.messages());
                            h.add(Message.builder(Role.USER).id(id).content(id).build());
                            return Outcome.of(new ChatUpdate(r, h, List.of(), List.of()), null);
                          })));
        }
        for (Future<?> f : futures) {
          f.get(120, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
    }
    ChatSnapshot s = store().find(k).orElseThrow();
    assertThat(s.messages()).hasSize(50);
    assertThat(new HashSet<>(s.messages().stream().map(m -> m.id().value()).toList())).hasSize(50);
    assertThat(s.record().version()).isEqualTo(50);
  }

  @Override
  protected void refuseChatRowDeletes() throws Exception {
    try (java.sql.Connection c = TestPostgres.connect();
        java.sql.Statement st = c.createStatement()) {
      st.execute("SET search_path TO " + schema);
      st.execute(
          "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$ BEGIN RAISE EXCEPTION 'refused by test trigger'; END $$");
      st.execute(
          "CREATE TRIGGER refuse_chat_delete BEFORE DELETE ON chats"
              + " FOR EACH ROW EXECUTE FUNCTION refuse()");
    }
  }
}
