package dev.compactor.chat.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoredMessagesTest {

  private static Message assistant(Map<String, Object> extra) {
    return Message.builder(Role.ASSISTANT)
        .id("m1")
        .content("done")
        .reasoning(
            List.of(
                new ReasoningBlock("thinking", "hmm", "sig"),
                new ReasoningBlock("reasoning", "plain", null)))
        .toolCalls(List.of(new ToolCall("c1", "shell", "{\"cmd\":\"ls\"}")))
        .timestamp(Instant.parse("2025-01-02T03:04:05Z"))
        .metadata(
            new MessageMetadata(
                "gpt-4o",
                "openai",
                new Usage(10, 2, 3, 0, 1),
                new InputFingerprint(3, "ab12", "gpt-4o"),
                extra))
        .build();
  }

  @Test
  void write_isTheNativeLine_withoutNullSignatures() {
    String line = StoredMessages.write(assistant(Map.of("k", "v")));

    assertThat(line)
        .contains("\"metadata\":{\"model\":\"gpt-4o\",\"provider\":\"openai\"")
        .contains("\"k\":\"v\"")
        .doesNotContain("\"signature\":null")
        .doesNotContain("\"extra\"");
    assertThat(StoredMessages.read(line)).isEqualTo(assistant(Map.of("k", "v")));
  }

  @Test
  void read_earlierChatStoreLayout_nestedExtraAndNullSignature() {
    // As the chat store wrote rows before it used the native codec: null signature and null
    // metadata fields written out, every usage count written, extra fields nested.
    String old =
        "{\"id\":\"m1\",\"role\":\"assistant\",\"content\":\"done\",\"reasoning\":["
            + "{\"type\":\"thinking\",\"text\":\"hmm\",\"signature\":\"sig\"},"
            + "{\"type\":\"reasoning\",\"text\":\"plain\",\"signature\":null}],"
            + "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"shell\",\"arguments\":\"{\\\"cmd\\\":\\\"ls\\\"}\"}],"
            + "\"timestamp\":\"2025-01-02T03:04:05Z\",\"metadata\":{\"model\":\"gpt-4o\","
            + "\"provider\":\"openai\",\"usage\":{\"input\":10,\"output\":2,\"cache_read\":3,"
            + "\"cache_write\":0,\"reasoning\":1},\"input\":{\"messages\":3,\"digest\":\"ab12\","
            + "\"model\":\"gpt-4o\"},\"extra\":{\"provider_compaction\":[{\"provider\":\"openai\","
            + "\"raw\":{\"type\":\"compaction\",\"id\":\"cmp_1\"}}]}}}";

    Map<String, Object> compaction = new LinkedHashMap<>();
    compaction.put("provider", "openai");
    compaction.put("raw", Map.of("type", "compaction", "id", "cmp_1"));
    assertThat(StoredMessages.read(old))
        .isEqualTo(assistant(Map.of("provider_compaction", List.of(compaction))));
  }

  @Test
  void read_earlierLayout_nullModelAndProvider() {
    String old =
        "{\"id\":\"u1\",\"role\":\"user\",\"content\":\"hi\",\"metadata\":{\"model\":null,"
            + "\"provider\":null,\"extra\":{\"source\":\"api\"}}}";

    Message m = StoredMessages.read(old);

    assertThat(m.metadata())
        .isEqualTo(new MessageMetadata(null, null, null, null, Map.of("source", "api")));
  }

  @Test
  void read_nativeLineOfTheLog() {
    String line =
        "{\"id\":\"m1\",\"role\":\"assistant\",\"content\":\"done\",\"reasoning\":["
            + "{\"type\":\"thinking\",\"text\":\"hmm\",\"signature\":\"sig\"},"
            + "{\"type\":\"reasoning\",\"text\":\"plain\"}],"
            + "\"tool_calls\":[{\"id\":\"c1\",\"name\":\"shell\",\"arguments\":\"{\\\"cmd\\\":\\\"ls\\\"}\"}],"
            + "\"timestamp\":\"2025-01-02T03:04:05Z\",\"metadata\":{\"model\":\"gpt-4o\","
            + "\"provider\":\"openai\",\"usage\":{\"input\":10,\"output\":2,\"cache_read\":3,"
            + "\"reasoning\":1},\"input\":{\"messages\":3,\"digest\":\"ab12\",\"model\":\"gpt-4o\"},"
            + "\"k\":\"v\"}}";

    assertThat(StoredMessages.read(line)).isEqualTo(assistant(Map.of("k", "v")));
  }

  @Test
  void aMessageWhoseNativeLineLooksLikeTheEarlierLayout_readsBackUnchanged() {
    // model and provider set, and one extra field named "extra" holding a map (mini-swe-agent
    // messages carry such a field)
    Message m = assistant(Map.of("extra", Map.of("timestamp", 1.5)));

    String line = StoredMessages.write(m);

    assertThat(line).contains("\"extra\":{\"extra\":{\"timestamp\":1.5}}");
    assertThat(StoredMessages.read(line)).isEqualTo(m);
  }

  @Test
  void read_notJson_isAChatStoreError() {
    assertThatThrownBy(() -> StoredMessages.read("{nope"))
        .isInstanceOf(ChatStoreException.class)
        .hasMessageContaining("stored message is not valid");
  }
}
