package dev.compactor.springai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.Compactor;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.openai.api.OpenAiApi;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.core.Ordered;

/**
 * A real Spring AI {@link ChatClient} with {@code spring-ai-openai}'s {@link OpenAiChatModel},
 * tools, memory and the advisor, pointed at the testkit's fake OpenAI server (which refuses a tool
 * result without its call, a call without its result and a prompt over the window), over enough
 * turns to compact several times.
 */
class ChatClientEndToEndTest {
  static final int WINDOW = 16_000;
  static final long BUDGET = 6000;

  FakeModelServer fake;
  OpenAiChatModel model;

  static final class Tools {
    final AtomicInteger calls = new AtomicInteger();

    @Tool(description = "Looks up the report stored under a key")
    String lookup(@ToolParam(description = "the key") String key) {
      calls.incrementAndGet();
      return "Report for " + key + ": " + "measurement row with several values; ".repeat(60);
    }
  }

  static Reply reply(RecordedRequest r) {
    List<JsonNode> items = r.items();
    JsonNode last = items.get(items.size() - 1);
    if ("tool".equals(last.path("role").asText())) {
      return Reply.text("The report for it is in."); // usage: the server's own estimate
    }
    String q = r.lastUserText();
    String key = q.substring(q.lastIndexOf(' ') + 1);
    return Reply.toolCall("call_" + key, "lookup", "{\"key\": \"" + key + "\"}");
  }

  /**
   * The fake provider answering {@link #reply}: a {@link #WINDOW}-token window, counted as {@code
   * gpt-4o-mini} counts.
   */
  static FakeModelServer fakeProvider() {
    return FakeModelServer.builder()
        .contextWindow(WINDOW)
        .tokenCounter(TokenCounters.forModel("openai/gpt-4o-mini")::countText)
        .replyWith(ChatClientEndToEndTest::reply)
        .start();
  }

  /** Spring AI's OpenAI model ({@code gpt-4o-mini}) pointed at {@code fake}. */
  static OpenAiChatModel openAiModel(FakeModelServer fake) {
    return OpenAiChatModel.builder()
        .openAiApi(OpenAiApi.builder().baseUrl(fake.url()).apiKey("sk-test").build())
        .defaultOptions(OpenAiChatOptions.builder().model("gpt-4o-mini").build())
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

  static Compactor compactor() {
    return Compactor.forModel("openai/gpt-4o-mini")
        .contextWindow(WINDOW)
        .maxOutputTokens(1000)
        .budget(Long.toString(BUDGET))
        .reminder(false)
        .build();
  }

  private long largestPrompt() {
    return fake.requests().stream()
        .mapToLong(r -> fake.estimatePromptTokens(r.json()))
        .max()
        .orElse(0);
  }

  @Test
  void memoryInsideTheToolLoopKeepsToolMessagesAndStaysWithinTheBudget() {
    CompactingChatMemory memory = CompactingChatMemory.builder().compactor(compactor()).build();
    Tools tools = new Tools();
    ChatClient chat =
        ChatClient.builder(model)
            .defaultAdvisors(
                ToolCallAdvisor.builder().advisorOrder(Ordered.HIGHEST_PRECEDENCE + 300).build(),
                CompactingMemoryAdvisor.of(memory))
            .defaultTools(tools)
            .build();
    int turns = 60;
    for (int i = 0; i < turns; i++) {
      String answer =
          chat.prompt()
              .user("look up key k" + i)
              .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "agent-1"))
              .call()
              .content();
      assertThat(answer).isEqualTo("The report for it is in.");
    }
    assertThat(tools.calls).hasValue(turns);
    assertThat(fake.rejections()).as("requests the provider refused").isEmpty();
    // the memory saw the tool messages: each turn's call and result is in the log
    List<org.springframework.ai.chat.messages.Message> history = memory.history("agent-1");
    long results = history.stream().filter(m -> m instanceof ToolResponseMessage).count();
    assertThat(results).isEqualTo(turns);
    assertThat(history.stream().filter(m -> m instanceof UserMessage).count()).isEqualTo(turns);
    assertThat(largestPrompt()).isLessThanOrEqualTo(BUDGET + 1500);
    // it compacted: the view is within the budget, the log holds several budgets' worth
    var counter = TokenCounters.forModel("openai/gpt-4o-mini");
    assertThat(memory.session("agent-1").tokens()).isLessThanOrEqualTo(BUDGET);
    assertThat(counter.countMessages(memory.session("agent-1").conversation().master().messages()))
        .isGreaterThan(3 * BUDGET);
  }

  @Test
  void theAdvisorCompactsAGrowingPromptAndReportsIt() {
    List<CompactionOutcome> outcomes = new ArrayList<>();
    ChatClient chat =
        ChatClient.builder(model)
            .defaultAdvisors(
                ToolCallAdvisor.builder().advisorOrder(Ordered.HIGHEST_PRECEDENCE + 300).build(),
                CompactionAdvisor.of(compactor()))
            .defaultTools(new Tools())
            .build();
    List<org.springframework.ai.chat.messages.Message> transcript = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      transcript.add(
          new UserMessage(
              "Here is the log I got, "
                  + "line of log output with a value; ".repeat(40)
                  + " please look up key a"
                  + i));
      ChatClientResponse r = chat.prompt().messages(transcript).call().chatClientResponse();
      outcomes.add((CompactionOutcome) r.context().get(CompactionAdvisor.OUTCOME));
      transcript.add(r.chatResponse().getResult().getOutput());
    }
    assertThat(fake.rejections()).isEmpty();
    assertThat(outcomes).anyMatch(o -> o instanceof CompactionOutcome.Compacted);
    assertThat(largestPrompt()).isLessThanOrEqualTo(BUDGET + 1500);
  }
}
