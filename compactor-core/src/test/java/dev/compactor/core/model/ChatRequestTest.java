package dev.compactor.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.AnthropicContextManagement.ClearThinking;
import dev.compactor.core.model.AnthropicContextManagement.ClearToolUses;
import dev.compactor.core.model.AnthropicContextManagement.Compact;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChatRequestTest {
  private static final List<Message> HI = List.of(Message.user("hi"));

  @Test
  void of_defaultsEverythingButMessages() {
    ChatRequest r = ChatRequest.of(HI);
    assertThat(r.model()).isNull();
    assertThat(r.tools()).isEmpty();
    assertThat(r.options()).isEmpty();
    assertThat(r.compactThreshold()).isNull();
  }

  @Test
  void compactThreshold_below1000_isRejected() {
    assertThatThrownBy(() -> ChatRequest.builder().messages(HI).compactThreshold(999).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compactThreshold must be >= 1000")
        .hasMessageContaining("999");
    assertThat(ChatRequest.builder().messages(HI).compactThreshold(1000).build().compactThreshold())
        .isEqualTo(1000);
  }

  @Test
  void emptyMessages_areRejected() {
    assertThatThrownBy(() -> ChatRequest.of(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one message");
  }

  @Test
  void duplicateToolNames_areRejected() {
    ToolSpec t = new ToolSpec("read", "", "{}");
    assertThatThrownBy(() -> ChatRequest.builder().messages(HI).tools(List.of(t, t)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"read\" is offered twice");
  }

  @Test
  void badNumbers_areRejectedNamingTheValue() {
    assertThatThrownBy(() -> ChatRequest.builder().messages(HI).maxOutputTokens(0).build())
        .hasMessageContaining("maxOutputTokens must be >= 1, got 0");
    assertThatThrownBy(() -> ChatRequest.builder().messages(HI).temperature(2.5).build())
        .hasMessageContaining("temperature must be in [0, 2], got 2.5");
    assertThatThrownBy(() -> ChatRequest.builder().messages(HI).model(" ").build())
        .hasMessageContaining("model must not be blank");
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
  void modelApi_parsesWireAndConstantNames() {
    assertThat(ModelApi.parse("chat_completions")).isEqualTo(ModelApi.CHAT_COMPLETIONS);
    assertThat(ModelApi.parse("RESPONSES")).isEqualTo(ModelApi.RESPONSES);
    assertThat(ModelApi.parse("anthropic-messages")).isEqualTo(ModelApi.ANTHROPIC_MESSAGES);
    assertThatThrownBy(() -> ModelApi.parse("completions"))
        .hasMessageContaining("unknown model API \"completions\"");
  }

  @Test
  void builderWithoutMessages_throwsNullPointer() {
    assertThatThrownBy(() -> ChatRequest.builder().build())
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("messages");
  }
}
