package dev.compactor.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.Compactor;
import dev.compactor.core.message.Message;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.CustomMessage;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CompactingChatMemoryTest {
  static CompactingChatMemory memory() {
    return CompactingChatMemory.builder()
        .id("m")
        .compactor(
            Compactor.forModel("openai/gpt-4o-mini")
                .contextWindow(16_000)
                .maxOutputTokens(1000)
                .budget("2000")
                .reminder(false)
                .build())
        .build();
  }

  static AiMessage call(String id) {
    return AiMessage.from(
        ToolExecutionRequest.builder().id(id).name("read").arguments("{\"path\":\"a\"}").build());
  }

  @Test
  void messagesComeBackExactlyAsGivenWhileUncompacted() {
    CompactingChatMemory m = memory();
    UserMessage named =
        UserMessage.builder()
            .name("ann")
            .contents(List.of(TextContent.from("look"), ImageContent.from("https://x/y.png")))
            .build();
    List<ChatMessage> given =
        List.of(
            named,
            call("c1"),
            ToolExecutionResultMessage.from("c1", "read", "file text"),
            AiMessage.builder().text("done").thinking("the file says so").build());
    given.forEach(m::add);
    assertThat(m.messages()).containsExactlyElementsOf(given);
    // thinking is a reasoning block Compactor never rewrites
    assertThat(m.session().messages().get(3).reasoning()).hasSize(1);
    Message rebuilt = m.session().messages().get(3).withContent("done");
    assertThat(LangChain4jMessages.toLangChain4j(rebuilt)).isEqualTo(given.get(3));
  }

  @Test
  void oneSystemMessageTheLatestFirst() {
    CompactingChatMemory m = memory();
    m.add(SystemMessage.from("one"));
    m.add(UserMessage.from("hi"));
    m.add(SystemMessage.from("two"));
    assertThat(m.messages()).containsExactly(SystemMessage.from("two"), UserMessage.from("hi"));
    assertThat(m.history()).containsExactly(UserMessage.from("hi"));
  }

  @Test
  void clearEmptiesTheViewAndKeepsTheLog() {
    CompactingChatMemory m = memory();
    m.add(UserMessage.from("before"));
    m.clear();
    m.add(UserMessage.from("after"));
    assertThat(m.messages()).containsExactly(UserMessage.from("after"));
    assertThat(m.history()).containsExactly(UserMessage.from("before"), UserMessage.from("after"));
  }

  @Test
  void setReplacesTheViewAtomically() {
    CompactingChatMemory m = memory();
    m.add(UserMessage.from("old"));
    m.set(SystemMessage.from("s"), UserMessage.from("new"), AiMessage.from("ok"));
    assertThat(m.messages())
        .containsExactly(SystemMessage.from("s"), UserMessage.from("new"), AiMessage.from("ok"));
    assertThat(m.history()).hasSize(3);
  }

  @Test
  void compactionRewritesOldToolOutputAndTheOriginalIsRecoverable() {
    CompactingChatMemory m = memory();
    String big = "line of a long tool output with numbers 12345\n".repeat(80);
    for (int i = 0; i < 6; i++) {
      m.add(UserMessage.from("question " + i));
      m.add(call("c" + i));
      m.add(ToolExecutionResultMessage.from("c" + i, "read", big + i));
      m.add(AiMessage.from("answer " + i));
    }
    assertThat(m.tokens()).isLessThanOrEqualTo(2000);
    List<Message> view = m.session().messages();
    Message rewritten =
        view.stream()
            .filter(
                v ->
                    v.toolCallId() != null
                        && !v.content().equals(big + v.toolCallId().substring(1)))
            .findFirst()
            .orElseThrow();
    // back in LangChain4j terms it is a tool result with the compacted text, same id
    ChatMessage lc = LangChain4jMessages.toLangChain4j(rewritten);
    assertThat(lc).isInstanceOf(ToolExecutionResultMessage.class);
    assertThat(((ToolExecutionResultMessage) lc).id()).isEqualTo(rewritten.toolCallId());
    assertThat(((ToolExecutionResultMessage) lc).toolName()).isEqualTo("read");
    // and the original is recoverable, exactly
    List<ChatMessage> original = m.recover(rewritten.id());
    assertThat(original)
        .anyMatch(
            o ->
                o instanceof ToolExecutionResultMessage t
                    && t.text().equals(big + rewritten.toolCallId().substring(1)));
  }

  @Test
  void pendingToolCallsAreNeverSeparatedFromTheirResults() {
    CompactingChatMemory m = memory();
    String big = "x".repeat(3000);
    m.add(UserMessage.from("go"));
    for (int i = 0; i < 5; i++) {
      m.add(call("p" + i));
      m.add(ToolExecutionResultMessage.from("p" + i, "read", big));
    }
    m.add(call("last"));
    List<ChatMessage> view = m.messages();
    assertThat(view.get(view.size() - 1)).isEqualTo(call("last"));
  }

  @Test
  void customMessagesAndIdlessToolCallsAreRefusedClearly() {
    CompactingChatMemory m = memory();
    assertThatThrownBy(() -> m.add(CustomMessage.from(Map.of("k", "v"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("CUSTOM");
    AiMessage idless =
        AiMessage.from(ToolExecutionRequest.builder().name("read").arguments("{}").build());
    assertThatThrownBy(() -> m.add(idless))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tool read")
        .hasMessageContaining("without an id");
    assertThat(m.messages()).isEmpty();
  }

  @Test
  void concurrentAddsOnOneMemoryLoseNothing() throws Exception {
    CompactingChatMemory m = memory();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> fs = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int n = i;
      fs.add(pool.submit(() -> m.add(UserMessage.from("u" + n))));
    }
    for (Future<?> f : fs) {
      f.get();
    }
    pool.shutdown();
    assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(m.history()).hasSize(200);
  }

  @Test
  void aMissingCompactorIsNamed() {
    assertThatThrownBy(() -> CompactingChatMemory.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("compactor");
  }

  @Test
  void memoryIdsNeverEscapeTheDirectory() {
    assertThat(CompactingChatMemoryProvider.directoryName("user-42")).isEqualTo("user-42");
    assertThat(CompactingChatMemoryProvider.directoryName("../../etc")).startsWith("id-");
    assertThat(CompactingChatMemoryProvider.directoryName("..")).startsWith("id-");
    assertThat(CompactingChatMemoryProvider.directoryName("a/b")).doesNotContain("/");
  }
}
