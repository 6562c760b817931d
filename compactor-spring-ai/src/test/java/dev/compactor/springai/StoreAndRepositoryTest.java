package dev.compactor.springai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.chat.store.ConversationStore;
import dev.compactor.core.message.Message;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.testkit.TestPostgres;
import dev.compactor.testkit.model.FakeModelServer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.core.Ordered;

/**
 * Conversations in a {@link ConversationStore} on SQLite and PostgreSQL: a {@code ChatClient} with
 * the compacting memory, restarted (a new store and memory on the same database), continues from
 * the compacted view with the system message; the {@link CompactorChatMemoryRepository} keeps tool
 * calls and tool responses through a round trip and a restart; the memory advisor anchors the next
 * measurement on the provider's usage and reports what it did.
 */
class StoreAndRepositoryTest {
  FakeModelServer fake;
  OpenAiChatModel model;
  @TempDir Path dir;
  String schema;

  @BeforeEach
  void start() {
    fake = ChatClientEndToEndTest.fakeProvider();
    model = ChatClientEndToEndTest.openAiModel(fake);
  }

  @AfterEach
  void stop() {
    fake.close();
    if (schema != null) {
      TestPostgres.dropSchema(schema);
    }
  }

  private String sqlite() {
    return "sqlite:" + dir.resolve("memory.db");
  }

  private String postgres() {
    schema = TestPostgres.newSchema("springai_test");
    return TestPostgres.server().uri(schema);
  }

  /** A compacting memory ({@link ChatClientEndToEndTest#compactor()}) kept in {@code store}. */
  private static CompactingChatMemory storedMemory(ConversationStore store) {
    return CompactingChatMemory.builder()
        .compactor(ChatClientEndToEndTest.compactor())
        .store(store)
        .build();
  }

  private ChatClient chat(CompactingChatMemory memory) {
    return ChatClient.builder(model)
        .defaultSystem("You look things up with the lookup tool.")
        .defaultAdvisors(
            ToolCallAdvisor.builder().advisorOrder(Ordered.HIGHEST_PRECEDENCE + 300).build(),
            CompactingMemoryAdvisor.of(memory))
        .defaultTools(new ChatClientEndToEndTest.Tools())
        .build();
  }

  private static ChatClientResponse ask(ChatClient chat, String user, String question) {
    return chat.prompt()
        .user(question)
        .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, user))
        .call()
        .chatClientResponse();
  }

  @Test
  void memoryRestartContinues_onSqlite() {
    memoryRestartContinues(sqlite());
  }

  @Test
  void memoryRestartContinues_onPostgres() {
    memoryRestartContinues(postgres());
  }

  private void memoryRestartContinues(String db) {
    List<org.springframework.ai.chat.messages.Message> before;
    try (ConversationStore store = ConversationStore.open(db);
        CompactingChatMemory memory = storedMemory(store)) {
      ChatClient chat = chat(memory);
      for (int i = 0; i < 20; i++) {
        ask(chat, "agent-1", "look up key k" + i);
      }
      assertThat(memory.session("agent-1").conversation().views()).hasSizeGreaterThan(1);
      before = memory.get("agent-1");
    }
    int sent = fake.requests().size();
    try (ConversationStore store = ConversationStore.open(db);
        CompactingChatMemory memory = storedMemory(store)) {
      assertThat(memory.conversationIds()).containsExactly("agent-1");
      List<org.springframework.ai.chat.messages.Message> after = memory.get("agent-1");
      assertThat(after).hasSameSizeAs(before);
      assertThat(after.get(0)).isInstanceOf(SystemMessage.class);
      for (int i = 0; i < after.size(); i++) {
        assertThat(after.get(i).getText()).isEqualTo(before.get(i).getText());
        assertThat(after.get(i).getMessageType()).isEqualTo(before.get(i).getMessageType());
      }
      ask(chat(memory), "agent-1", "look up key k20");
      // the first request after the restart is the restored view plus the new question
      assertThat(fake.requests().get(sent).items()).hasSize(before.size() + 1);
      assertThat(fake.rejections()).isEmpty();
      assertThat(
              memory.history("agent-1").stream()
                  .filter(m -> m instanceof ToolResponseMessage)
                  .count())
          .isEqualTo(21);
    }
  }

  @Test
  void repositoryKeepsToolMessagesThroughARestart_onSqlite() {
    repositoryKeepsToolMessages(sqlite());
  }

  @Test
  void repositoryKeepsToolMessagesThroughARestart_onPostgres() {
    repositoryKeepsToolMessages(postgres());
  }

  private void repositoryKeepsToolMessages(String db) {
    List<org.springframework.ai.chat.messages.Message> saved =
        List.of(
            new SystemMessage("Be brief."),
            new UserMessage("weather in Paris?"),
            AssistantMessage.builder()
                .content("")
                .toolCalls(
                    List.of(
                        new AssistantMessage.ToolCall(
                            "call_1", "function", "weather", "{\"city\":\"Paris\"}"),
                        new AssistantMessage.ToolCall(
                            "call_2", "function", "time", "{\"city\":\"Paris\"}")))
                .build(),
            ToolResponseMessage.builder()
                .responses(
                    List.of(
                        new ToolResponseMessage.ToolResponse("call_1", "weather", "18 C, sunny"),
                        new ToolResponseMessage.ToolResponse("call_2", "time", "14:05")))
                .build(),
            new AssistantMessage("18 C and sunny at 14:05."));
    try (ConversationStore store = ConversationStore.open(db)) {
      CompactorChatMemoryRepository repo = new CompactorChatMemoryRepository(store);
      repo.saveAll("c-1", saved);
      assertSameMessages(repo.findByConversationId("c-1"), saved);
    }
    try (ConversationStore store = ConversationStore.open(db)) {
      CompactorChatMemoryRepository repo = new CompactorChatMemoryRepository(store);
      assertThat(repo.findConversationIds()).containsExactly("c-1");
      List<org.springframework.ai.chat.messages.Message> found = repo.findByConversationId("c-1");
      assertSameMessages(found, saved);
      ToolResponseMessage tools = (ToolResponseMessage) found.get(3);
      assertThat(tools.getResponses())
          .extracting(ToolResponseMessage.ToolResponse::name)
          .containsExactly("weather", "time");
      AssistantMessage call = (AssistantMessage) found.get(2);
      assertThat(call.getToolCalls())
          .extracting(AssistantMessage.ToolCall::arguments)
          .containsExactly("{\"city\":\"Paris\"}", "{\"city\":\"Paris\"}");

      // Spring AI's window memory over it: evicts from the view, the log keeps everything
      ChatMemory window =
          MessageWindowChatMemory.builder().chatMemoryRepository(repo).maxMessages(3).build();
      window.add("c-1", new UserMessage("and in Rome?"));
      assertThat(repo.findByConversationId("c-1")).hasSizeLessThanOrEqualTo(4);
      assertThat(store.conversation("c-1").master().messages())
          .extracting(Message::content)
          .contains("weather in Paris?", "18 C, sunny", "14:05", "and in Rome?");
      repo.deleteByConversationId("c-1");
      assertThat(repo.findConversationIds()).isEmpty();
      assertThat(repo.findByConversationId("c-1")).isEmpty();
    }
  }

  private static void assertSameMessages(
      List<org.springframework.ai.chat.messages.Message> actual,
      List<org.springframework.ai.chat.messages.Message> expected) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      assertThat(actual.get(i).getMessageType()).isEqualTo(expected.get(i).getMessageType());
      assertThat(actual.get(i).getText()).isEqualTo(expected.get(i).getText());
      if (expected.get(i) instanceof AssistantMessage a) {
        assertThat(((AssistantMessage) actual.get(i)).getToolCalls()).isEqualTo(a.getToolCalls());
      }
      if (expected.get(i) instanceof ToolResponseMessage t) {
        assertThat(((ToolResponseMessage) actual.get(i)).getResponses())
            .isEqualTo(t.getResponses());
      }
    }
  }

  @Test
  void theAdvisorAnchorsOnTheResponsesUsageAndReportsWhatItDid() {
    CompactingChatMemory memory =
        CompactingChatMemory.builder().compactor(ChatClientEndToEndTest.compactor()).build();
    ChatClient chat = chat(memory);
    boolean compactedSeen = false;
    for (int i = 0; i < 20; i++) {
      ChatClientResponse r = ask(chat, "a", "look up key u" + i);
      assertThat(r.context().get(CompactingMemoryAdvisor.AFTER_RESPONSE))
          .isInstanceOf(CompactionOutcome.class);
      assertThat(r.context().get(CompactingMemoryAdvisor.OUTCOME))
          .isInstanceOf(CompactionOutcome.class);
      compactedSeen |=
          r.context().get(CompactingMemoryAdvisor.OUTCOME) instanceof CompactionOutcome.Compacted
              || r.context().get(CompactingMemoryAdvisor.AFTER_RESPONSE)
                  instanceof CompactionOutcome.Compacted;
    }
    assertThat(compactedSeen).as("a compaction was reported").isTrue();
    // the last answer carries the provider's usage (the fake reports its count of the prompt) and
    // the fingerprint of the view it answered: the measurement starts from it
    List<Message> view = memory.session("a").messages();
    Message last = view.get(view.size() - 1);
    assertThat(last.metadata().usage()).isNotNull();
    var lastRequest = fake.requests().get(fake.requests().size() - 1);
    assertThat(last.metadata().usage().totalInput())
        .isEqualTo(fake.estimatePromptTokens(lastRequest.json()));
    var m =
        new ContextMeter(TokenCounters.forModel("openai/gpt-4o-mini"))
            .measure(memory.session("a").conversation().activeMessages(), "openai/gpt-4o-mini");
    assertThat(m.anchored()).as(m.toString()).isTrue();
    assertThat(m.tokens()).isEqualTo(memory.session("a").tokens());
  }
}
