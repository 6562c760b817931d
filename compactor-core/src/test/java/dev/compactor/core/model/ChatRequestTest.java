package dev.compactor.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Message;
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
    assertThat(r.extensions()).isEmpty();
  }

  private record Alpha(int n) implements RequestExtension {}

  private record Beta(String s) implements RequestExtension {}

  @Test
  void extensions_areKeyedByClass_oneEach_andSurviveCopies() {
    ChatRequest r =
        ChatRequest.builder()
            .messages(HI)
            .extension(new Alpha(1))
            .extension(new Beta("b"))
            .extension(new Alpha(2))
            .build();
    assertThat(r.extension(Alpha.class)).contains(new Alpha(2));
    assertThat(r.extension(Beta.class)).contains(new Beta("b"));
    assertThat(r.extensions().keySet()).containsExactly(Alpha.class, Beta.class);
    assertThat(r.withModel("m").extension(Alpha.class)).contains(new Alpha(2));
    assertThat(r.toBuilder().withoutExtension(Alpha.class).build().extension(Alpha.class))
        .isEmpty();
    assertThatThrownBy(() -> r.extensions().put(Beta.class, new Beta("c")))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void extensions_mustBeInstancesOfTheirKey() {
    assertThatThrownBy(
            () ->
                new ChatRequest(
                    null, HI, null, null, null, null, java.util.Map.of(Alpha.class, new Beta("x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyed by")
        .hasMessageContaining("Alpha")
        .hasMessageContaining("Beta");
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
