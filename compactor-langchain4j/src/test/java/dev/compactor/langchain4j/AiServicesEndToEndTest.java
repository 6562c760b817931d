package dev.compactor.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.Compactor;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.TokenWindowChatMemory;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.SystemMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LangChain4j's {@code AiServices} with {@code @Tool} methods and {@code langchain4j-open-ai}'s
 * {@link OpenAiChatModel}, pointed at the testkit's fake provider, which rejects what OpenAI
 * rejects (a tool result without its call, a call without its result, a prompt over the window):
 * 200 turns, each a tool call and its answer, with a compacting memory and with LangChain4j's own
 * {@link TokenWindowChatMemory} for contrast.
 */
class AiServicesEndToEndTest {
  static final int TURNS = 200;
  static final int WINDOW = 16_000;
  static final String BUDGET = "8000";

  FakeModelServer fake;
  OpenAiChatModel model;

  interface Assistant {
    @SystemMessage("You look things up for the user with the lookup tool, then answer in one line.")
    String chat(String question);
  }

  /** The tool: a long report per key, as real tools return. */
  static final class Tools {
    final AtomicInteger calls = new AtomicInteger();

    @Tool("Looks up the report stored under a key")
    String lookup(@P("the key") String key) {
      calls.incrementAndGet();
      return ("Report for " + key + ": ") + "measurement row with several values; ".repeat(60);
    }
  }

  /** The provider: a tool call for a question, an answer once the tool result is in. */
  static Reply reply(RecordedRequest r) {
    List<JsonNode> items = r.items();
    JsonNode last = items.get(items.size() - 1);
    if ("tool".equals(last.path("role").asText())) {
      return Reply.text("The report for it is in.").usage(500, 10);
    }
    String q = r.lastUserText();
    String key = q.substring(q.lastIndexOf(' ') + 1);
    return Reply.toolCall("call_" + key, "lookup", "{\"key\": \"" + key + "\"}").usage(500, 10);
  }

  /**
   * The fake provider answering {@link #reply}: a {@link #WINDOW}-token window, counted as {@code
   * gpt-4o-mini} counts.
   */
  static FakeModelServer fakeProvider() {
    return FakeModelServer.builder()
        .contextWindow(WINDOW)
        .tokenCounter(TokenCounters.forModel("openai/gpt-4o-mini")::countText)
        .replyWith(AiServicesEndToEndTest::reply)
        .start();
  }

  /** {@code langchain4j-open-ai}'s model pointed at {@code fake}, without retries. */
  static OpenAiChatModel openAiModel(FakeModelServer fake) {
    return OpenAiChatModel.builder()
        .baseUrl(fake.baseUrl())
        .apiKey("sk-test")
        .modelName("gpt-4o-mini")
        .timeout(Duration.ofSeconds(30))
        .maxRetries(0)
        .build();
  }

  /** A compactor for {@code gpt-4o-mini} in the fake's window, compacting at {@code budget}. */
  static Compactor compactor(String budget) {
    return Compactor.forModel("openai/gpt-4o-mini")
        .contextWindow(WINDOW)
        .maxOutputTokens(1000)
        .budget(budget)
        .reminder(false)
        .build();
  }

  @BeforeEach
  void start() {
    fake = fakeProvider();
    model = openAiModel(fake);
  }

  @AfterEach
  void stop() {
    fake.close();
  }

  private Assistant assistant(ChatMemory memory, Tools tools) {
    return AiServices.builder(Assistant.class)
        .chatModel(model)
        .chatMemory(memory)
        .tools(tools)
        .build();
  }

  @Test
  void twoHundredToolTurnsStayWithinTheBudgetWithEveryOriginalRecoverable() {
    Tools tools = new Tools();
    CompactingChatMemory memory =
        CompactingChatMemory.builder().id("agent").compactor(compactor(BUDGET)).build();
    Assistant a = assistant(memory, tools);
    for (int i = 0; i < TURNS; i++) {
      assertThat(a.chat("look up key k" + i)).isEqualTo("The report for it is in.");
    }
    assertThat(tools.calls).hasValue(TURNS);
    assertThat(fake.rejections()).as("requests the provider refused").isEmpty();
    assertThat(fake.requests()).hasSize(2 * TURNS);
    long max =
        fake.requests().stream()
            .mapToLong(r -> fake.estimatePromptTokens(r.json()))
            .max()
            .orElse(0);
    // the budget, plus what one turn adds before the policy runs again, plus the tool definition
    assertThat(max).as("largest prompt sent").isLessThanOrEqualTo(Long.parseLong(BUDGET) + 1500);
    // it compacted: the view is far smaller than the log (masking keeps a message as a
    // placeholder, a summary drops it: with outputs masked early, fewer summaries are needed)
    List<ChatMessage> history = memory.history();
    assertThat(history).hasSize(4 * TURNS); // user, tool call, tool result, answer per turn
    assertThat(memory.messages().size()).isLessThan(history.size() / 2);
    // every original is in the log, exactly as LangChain4j gave it
    Set<String> results = new HashSet<>();
    for (ChatMessage m : history) {
      if (m instanceof ToolExecutionResultMessage t) {
        results.add(t.text());
      }
    }
    for (int i = 0; i < TURNS; i++) {
      assertThat(results).contains(tools.lookup("k" + i));
    }
    // the first question is recoverable through whatever replaced it
    ChatMessage first = history.get(0);
    assertThat(first).isInstanceOf(UserMessage.class);
    assertThat(((UserMessage) first).singleText()).isEqualTo("look up key k0");
  }

  @Test
  void everyRequestKeepsEachToolCallWithItsResult() {
    CompactingChatMemory memory =
        CompactingChatMemory.builder().id("pairs").compactor(compactor(BUDGET)).build();
    Assistant a = assistant(memory, new Tools());
    for (int i = 0; i < 60; i++) {
      a.chat("look up key p" + i);
      List<ChatMessage> view = memory.messages();
      Set<String> open = new HashSet<>();
      for (ChatMessage m : view) {
        if (m instanceof AiMessage ai && ai.hasToolExecutionRequests()) {
          ai.toolExecutionRequests().forEach(r -> open.add(r.id()));
        } else if (m instanceof ToolExecutionResultMessage t) {
          assertThat(open.remove(t.id())).as("result %s has its call", t.id()).isTrue();
        }
      }
      assertThat(open).as("calls without results after turn " + i).isEmpty();
    }
    assertThat(fake.rejections()).isEmpty();
  }

  @Test
  void aConversationDirectoryOutlivesTheProcess(@TempDir Path dir) {
    try (CompactingChatMemoryProvider memories =
        CompactingChatMemoryProvider.builder()
            .compactor(compactor(BUDGET))
            .directory(dir)
            .build()) {
      Assistant a =
          AiServices.builder(Assistant.class)
              .chatModel(model)
              .chatMemoryProvider(memories)
              .tools(new Tools())
              .build();
      for (int i = 0; i < 5; i++) {
        a.chat("look up key d" + i);
      }
    }
    try (CompactingChatMemoryProvider again =
        CompactingChatMemoryProvider.builder()
            .compactor(compactor(BUDGET))
            .directory(dir)
            .build()) {
      CompactingChatMemory memory = again.get("default");
      assertThat(memory.history()).hasSize(20);
      assertThat(((UserMessage) memory.history().get(16)).singleText()).isEqualTo("look up key d4");
    }
  }

  @Test
  void lc4jsTokenWindowMemoryStaysValidButForgets() {
    TokenWindowChatMemory memory =
        TokenWindowChatMemory.builder()
            .maxTokens(
                Integer.parseInt(BUDGET),
                CompactorTokenCountEstimator.forModel("openai/gpt-4o-mini"))
            .build();
    Assistant a = assistant(memory, new Tools());
    for (int i = 0; i < TURNS; i++) {
      a.chat("look up key w" + i);
    }
    assertThat(fake.rejections()).isEmpty();
    // the window evicted the old turns for good: the first question is nowhere
    assertThat(memory.messages())
        .noneMatch(m -> m instanceof UserMessage u && u.singleText().equals("look up key w0"));
  }
}
