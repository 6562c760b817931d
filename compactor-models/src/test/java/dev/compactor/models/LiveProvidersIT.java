package dev.compactor.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.core.model.UnknownModelException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * Calls the real providers. Runs only when the provider's key is set; otherwise skipped. Run with
 * {@code mvn -pl compactor-models -am test -Dtest='LiveProvidersIT'
 * -Dsurefire.failIfNoSpecifiedTests=false}. Models can be changed with {@code
 * COMPACTOR_IT_OPENAI_MODEL} / {@code COMPACTOR_IT_ANTHROPIC_MODEL}.
 */
@Tag("live")
class LiveProvidersIT {
  private static final ToolSpec ADD =
      new ToolSpec(
          "add",
          "Adds two integers",
          "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
              + "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}");

  private static String env(String name, String fallback) {
    return Optional.ofNullable(System.getenv(name)).filter(s -> !s.isBlank()).orElse(fallback);
  }

  private static void chatStreamAndToolCall(ChatModel model) {
    ChatRequest hello =
        ChatRequest.builder()
            .messages(List.of(Message.system("Answer in one word."), Message.user("Say hello.")))
            .maxOutputTokens(200)
            .build();
    ChatResponse r = model.chat(hello);
    assertThat(r.text()).isNotBlank();
    assertThat(r.usage()).isNotNull();
    assertThat(r.usage().totalInput()).isPositive();
    assertThat(r.message().metadata().input().messageCount()).isEqualTo(2);

    StringBuilder streamed = new StringBuilder();
    ChatResponse s =
        model.stream(
            hello,
            new StreamListener() {
              @Override
              public void onText(String d) {
                streamed.append(d);
              }
            });
    assertThat(streamed.toString()).isEqualTo(s.text()).isNotBlank();
    assertThat(s.usage()).isNotNull();

    ChatResponse tool =
        model.chat(
            ChatRequest.builder()
                .messages(List.of(Message.user("Use the add tool to add 2 and 3.")))
                .tools(List.of(ADD))
                .maxOutputTokens(300)
                .build());
    assertThat(tool.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(tool.message().toolCalls()).isNotEmpty();
    assertThat(tool.message().toolCalls().get(0).name()).isEqualTo("add");
  }

  /** The OpenAI model the live tests call: {@code COMPACTOR_IT_OPENAI_MODEL}, else gpt-4o-mini. */
  private static String openAiModel() {
    return "openai/" + env("COMPACTOR_IT_OPENAI_MODEL", "gpt-4o-mini");
  }

  @Test
  @EnabledIfEnvironmentVariable(named = "OPENAI_API_KEY", matches = ".+")
  void openAiResponses_chatStreamToolCall() {
    chatStreamAndToolCall(ChatModels.create(openAiModel()));
  }

  @Test
  @EnabledIfEnvironmentVariable(named = "OPENAI_API_KEY", matches = ".+")
  void openAiChatCompletions_chatStreamToolCall() {
    chatStreamAndToolCall(
        ChatModels.create(
            openAiModel(), ChatModelOptions.builder().api(ModelApi.CHAT_COMPLETIONS).build()));
  }

  @Test
  @EnabledIfEnvironmentVariable(named = "OPENAI_API_KEY", matches = ".+")
  void openAi_unknownModel_isUnknownModelException() {
    assertThatThrownBy(
            () ->
                ChatModels.create("openai/no-such-model-compactor")
                    .chat(ChatRequest.of(List.of(Message.user("hi")))))
        .isInstanceOf(UnknownModelException.class);
  }

  @Test
  @EnabledIfEnvironmentVariable(named = "ANTHROPIC_API_KEY", matches = ".+")
  void anthropic_chatStreamToolCall() {
    chatStreamAndToolCall(
        ChatModels.create(
            "anthropic/" + env("COMPACTOR_IT_ANTHROPIC_MODEL", "claude-haiku-4-5"),
            ChatModelOptions.builder().env(Map.copyOf(System.getenv())).build()));
  }
}
