package dev.compactor.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.Compactor;
import dev.compactor.testkit.TestPostgres;
import dev.compactor.testkit.model.FakeModelServer;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service restarted on the same SQLite file or PostgreSQL database continues its conversations:
 * {@code AiServices} with a {@link CompactingChatMemoryProvider} over a {@link ConversationStore},
 * enough tool turns to compact, then a new store and provider (a new process) that goes on from the
 * compacted view, with the system message and every original message.
 */
class StoreRestartTest {
  FakeModelServer fake;
  OpenAiChatModel model;
  @TempDir Path dir;
  String schema;

  interface Agent {
    @dev.langchain4j.service.SystemMessage("You look things up with the lookup tool.")
    String chat(@MemoryId String user, @UserMessage String question);
  }

  @BeforeEach
  void start() {
    fake = AiServicesEndToEndTest.fakeProvider();
    model = AiServicesEndToEndTest.openAiModel(fake);
  }

  @AfterEach
  void stop() {
    fake.close();
    if (schema != null) {
      TestPostgres.dropSchema(schema);
    }
  }

  private static Compactor compactor() {
    return AiServicesEndToEndTest.compactor("6000");
  }

  @Test
  void onSqlite() {
    restartContinues("sqlite:" + dir.resolve("memories.db"));
  }

  @Test
  void onPostgres() {
    schema = TestPostgres.newSchema("lc4j_test");
    restartContinues(TestPostgres.server().uri(schema));
  }

  private void restartContinues(String db) {
    List<ChatMessage> viewBefore;
    try (ConversationStore store = ConversationStore.open(db);
        CompactingChatMemoryProvider memories =
            CompactingChatMemoryProvider.builder().compactor(compactor()).store(store).build()) {
      Agent agent = agent(memories);
      for (int i = 0; i < 25; i++) {
        agent.chat("alice", "look up key a" + i);
      }
      agent.chat("bob", "look up key b0");
      CompactingChatMemory alice = memories.get("alice");
      assertThat(alice.session().conversation().views()).as("compacted").hasSizeGreaterThan(1);
      viewBefore = alice.messages();
    }
    int sentBefore = fake.requests().size();

    try (ConversationStore store = ConversationStore.open(db);
        CompactingChatMemoryProvider memories =
            CompactingChatMemoryProvider.builder().compactor(compactor()).store(store).build()) {
      assertThat(store.ids()).containsExactly("alice", "bob");
      CompactingChatMemory alice = memories.get("alice");
      assertThat(alice.messages()).as("the view after the restart").isEqualTo(viewBefore);
      assertThat(alice.messages().get(0)).isInstanceOf(SystemMessage.class);
      Agent agent = agent(memories);
      agent.chat("alice", "look up key a25");
      // the first request after the restart carried the conversation: the view plus the question
      assertThat(fake.requests().get(sentBefore).items()).hasSize(viewBefore.size() + 1);
      assertThat(fake.requests().get(sentBefore).json().toString()).contains("look up key a24");
      assertThat(fake.rejections()).isEmpty();
      List<ChatMessage> history = alice.history();
      assertThat(history).hasSize(4 * 26);
      assertThat(((dev.langchain4j.data.message.UserMessage) history.get(0)).singleText())
          .isEqualTo("look up key a0");
      assertThat(memories.get("bob").history()).hasSize(4);
    }
  }

  private Agent agent(CompactingChatMemoryProvider memories) {
    return AiServices.builder(Agent.class)
        .chatModel(model)
        .chatMemoryProvider(memories)
        .tools(new AiServicesEndToEndTest.Tools())
        .build();
  }
}
