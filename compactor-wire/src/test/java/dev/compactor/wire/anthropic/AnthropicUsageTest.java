package dev.compactor.wire.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.message.Message;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.json.MessageCodec;
import org.junit.jupiter.api.Test;

/** An assistant turn's {@code usage}: typed counts, and the wire object under its own key. */
class AnthropicUsageTest {

  @Test
  void theWireUsageObject_isKeptAsApiUsage_andTheMessageCanBeWritten() throws Exception {
    Message m =
        AnthropicMessages.decode(
                Json.parse(
                    """
                    {"messages": [
                      {"role": "user", "content": "hi"},
                      {"role": "assistant", "model": "claude-sonnet-4",
                       "content": [{"type": "text", "text": "hello"}],
                       "usage": {"input_tokens": 12, "output_tokens": 3,
                                 "service_tier": "standard"}}]}
                    """))
            .messages()
            .get(1);

    assertThat(m.metadata().usage()).isNotNull();
    assertThat(m.metadata().usage().output()).isEqualTo(3);
    assertThat(m.metadata().extra()).doesNotContainKey("usage");
    assertThat(m.metadata().extra().get(AnthropicContent.USAGE_EXTRA).toString())
        .contains("service_tier");

    MessageCodec codec = new MessageCodec();
    Message back = codec.readLine(codec.writeLine(m));
    assertThat(back.metadata().extra()).containsKey(AnthropicContent.USAGE_EXTRA);
    assertThat(back.metadata().usage()).isEqualTo(m.metadata().usage());
  }
}
