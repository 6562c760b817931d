package dev.compactor.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.chat.base.ChatKey;
import org.junit.jupiter.api.Test;

class ChatKeyTest {
  @Test
  void defaultTenant_whenNoneIsNamed() {
    assertThat(ChatKey.of("c")).isEqualTo(new ChatKey("default", "c"));
    assertThat(ChatKey.of(null, "c").tenant()).isEqualTo("default");
    assertThat(ChatKey.of("t", "c").toString()).isEqualTo("t/c");
  }

  @Test
  void blankLongOrControlCharacterIds_areRejected_namingTheField() {
    assertThatThrownBy(() -> ChatKey.of(" ")).hasMessageContaining("chat id");
    assertThatThrownBy(() -> ChatKey.of("", "c")).hasMessageContaining("tenant");
    assertThatThrownBy(() -> ChatKey.of("x".repeat(201))).hasMessageContaining("200");
    assertThatThrownBy(() -> ChatKey.of("a\nb")).hasMessageContaining("control");
  }
}
