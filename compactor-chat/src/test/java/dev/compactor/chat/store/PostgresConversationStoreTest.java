package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.testkit.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The contract on a real PostgreSQL server ({@link TestPostgres}), each test in a new schema. */
class PostgresConversationStoreTest extends ConversationStoreContract {
  private String schema;

  @BeforeEach
  void newSchema() {
    schema = TestPostgres.newSchema("conv_test");
  }

  @AfterEach
  void dropSchema() {
    restart();
    TestPostgres.dropSchema(schema);
  }

  @Override
  protected ConversationStore openStore() {
    return ConversationStore.open(TestPostgres.server().uri(schema));
  }

  @Test
  void opensFromAPostgresUrlAndDescribesItWithoutSecrets() {
    assertThat(store().describe()).contains(schema).doesNotContain("password=");
  }
}
