package dev.compactor.models;

import static dev.compactor.models.testing.Fixtures.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.RequestExtension;
import dev.compactor.models.AnthropicContextManagement.ClearThinking;
import dev.compactor.models.AnthropicContextManagement.ClearToolUses;
import dev.compactor.models.AnthropicContextManagement.Compact;
import dev.compactor.models.anthropic.AnthropicMessagesModel;
import dev.compactor.models.internal.HttpChatModel;
import dev.compactor.models.openai.OpenAiChatCompletionsModel;
import dev.compactor.models.openai.OpenAiResponsesModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The provider-specific request extensions, and clients refusing the ones they cannot send. */
class RequestExtensionsTest {
  private static final List<Message> HI = List.of(Message.user("hi"));

  /** An extension no client knows. */
  private record Foreign(String value) implements RequestExtension {}

  private static ChatModelOptions opts() {
    return options("http://127.0.0.1:9/v1", new ArrayList<Duration>()).build();
  }

  @Test
  void compactThreshold_below1000_isRejected() {
    assertThatThrownBy(() -> new ResponsesCompaction(999))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compactThreshold must be >= 1000")
        .hasMessageContaining("999");
    ChatRequest r =
        ChatRequest.builder().messages(HI).extension(new ResponsesCompaction(1000)).build();
    assertThat(r.extension(ResponsesCompaction.class).orElseThrow().compactThreshold())
        .isEqualTo(1000);
  }

  @Test
  void anthropicManagement_betasFollowTheEdits() {
    assertThat(AnthropicContextManagement.of(ClearToolUses.defaults()).betas())
        .containsExactly("context-management-2025-06-27");
    assertThat(AnthropicContextManagement.of(Compact.defaults()).betas())
        .containsExactly("compact-2026-01-12");
    assertThat(
            AnthropicContextManagement.of(ClearThinking.keepTurns(2), Compact.defaults()).betas())
        .containsExactly("context-management-2025-06-27", "compact-2026-01-12");
  }

  @Test
  void anthropicManagement_validatesEdits() {
    assertThatThrownBy(() -> new Compact(10_000L, null, null))
        .hasMessageContaining(">= 50000")
        .hasMessageContaining("10000");
    assertThatThrownBy(
            () -> AnthropicContextManagement.of(ClearToolUses.defaults(), ClearToolUses.defaults()))
        .hasMessageContaining("distinct types");
    assertThatThrownBy(() -> new ClearThinking(1, true)).hasMessageContaining("exclude");
    assertThatThrownBy(() -> new AnthropicContextManagement(List.of()))
        .hasMessageContaining("at least one edit");
  }

  @Test
  void everyClient_rejectsAnExtensionItDoesNotHonour_namingIt() {
    ChatRequest foreign = ChatRequest.builder().messages(HI).extension(new Foreign("x")).build();
    List<HttpChatModel> clients =
        List.of(
            new OpenAiChatCompletionsModel(ModelProvider.OPENAI, "gpt-4o", opts()),
            new OpenAiResponsesModel(ModelProvider.OPENAI, "gpt-5", opts()),
            new AnthropicMessagesModel("claude-sonnet-4-5", opts()));
    for (HttpChatModel client : clients) {
      assertThatThrownBy(() -> client.body(foreign, false))
          .as(client.toString())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("request extension Foreign is not honoured by")
          .hasMessageContaining(client.model());
    }
    assertThatThrownBy(
            () -> new OpenAiResponsesModel(ModelProvider.OPENAI, "gpt-5", opts()).compact(foreign))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("request extension Foreign");
  }

  @Test
  void eachClient_sendsTheExtensionOfItsOwnApi() {
    ChatRequest responses =
        ChatRequest.builder().messages(HI).extension(new ResponsesCompaction(5000)).build();
    assertThat(
            new OpenAiResponsesModel(ModelProvider.OPENAI, "gpt-5", opts())
                .body(responses, false)
                .at("/context_management/0/compact_threshold")
                .asInt())
        .isEqualTo(5000);
    ChatRequest anthropic =
        ChatRequest.builder()
            .messages(HI)
            .extension(AnthropicContextManagement.of(Compact.defaults()))
            .build();
    assertThat(
            new AnthropicMessagesModel("claude-sonnet-4-5", opts())
                .body(anthropic, false)
                .at("/context_management/edits/0/type")
                .asText())
        .isEqualTo("compact_20260112");
  }
}
