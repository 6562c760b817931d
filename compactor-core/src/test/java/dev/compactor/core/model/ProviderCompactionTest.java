package dev.compactor.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ProviderCompactionTest {

  @Test
  void itemsWrittenToMetadata_readBackEqual() {
    Map<String, Object> raw = new LinkedHashMap<>();
    raw.put("id", "cmp_1");
    raw.put("type", "compaction");
    raw.put("encrypted_content", "gAAA");
    CompactionItem item = new CompactionItem("openai", raw);
    Message m =
        Message.assistant("ok").toBuilder()
            .metadata(ProviderCompaction.withItems(Message.assistant("").metadata(), List.of(item)))
            .build();

    assertThat(ProviderCompaction.itemsOf(m)).containsExactly(item);
    assertThat(item.id()).isEqualTo("cmp_1");
    assertThat(item.content()).isEqualTo("gAAA");
    assertThat(ProviderCompaction.itemsOf(Message.user("x"))).isEmpty();
  }

  @Test
  void compactionItem_isDeeplyUnmodifiable() {
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("k", new ArrayList<>(List.of(1)));
    CompactionItem item = new CompactionItem("anthropic", Map.of("content", "s", "x", nested));
    assertThatThrownBy(() -> ((List<Object>) ((Map<?, ?>) item.raw().get("x")).get("k")).add(2))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void compacted_onlyWhenAnItemHasContent() {
    Map<String, Object> failed = new LinkedHashMap<>();
    failed.put("type", "compaction");
    failed.put("content", null);
    assertThat(
            new ProviderCompaction(List.of(new CompactionItem("anthropic", failed)), null, null)
                .compacted())
        .isFalse();
    assertThat(
            new ProviderCompaction(
                    List.of(new CompactionItem("anthropic", Map.of("content", "sum"))), null, null)
                .compacted())
        .isTrue();
    assertThat(ProviderCompaction.NONE.compacted()).isFalse();
  }

  @Test
  void inputFingerprints_stampTheDigestOfTheGivenMessages() {
    List<Message> sent = List.of(Message.system("s"), Message.user("u"));
    Message reply =
        InputFingerprints.stamp(
            Message.assistant("a").toBuilder()
                .metadata(Message.assistant("").metadata().withUsage(new Usage(5, 1, 0, 0, 0)))
                .build(),
            sent,
            "gpt-4o");
    assertThat(reply.metadata().input().messageCount()).isEqualTo(2);
    assertThat(reply.metadata().input().digest()).isEqualTo(Digests.prefix(sent));
    assertThat(reply.metadata().input().model()).isEqualTo("gpt-4o");
    assertThat(reply.metadata().usage()).isEqualTo(new Usage(5, 1, 0, 0, 0));
  }

  @Test
  void chatResponse_requiresAnAssistantMessage() {
    assertThatThrownBy(
            () -> new ChatResponse(Message.user("x"), null, null, null, null, null, null))
        .hasMessageContaining("assistant message, not user");
    ChatResponse r = new ChatResponse(Message.assistant("x"), null, null, null, null, null, null);
    assertThat(r.finishReason()).isEqualTo(FinishReason.OTHER);
    assertThat(r.compaction()).isEqualTo(ProviderCompaction.NONE);
  }

  @Test
  void exceptions_exposeProviderDetailsAndPartialOutput() {
    ModelError err =
        new ModelError("openai", 400, "invalid_request_error", "context_length_exceeded", "{}");
    ContextOverflowException e =
        new ContextOverflowException(
            "too long",
            err,
            OptionalLong.of(10),
            OptionalLong.empty(),
            Message.assistant("par"),
            null);
    assertThat(e)
        .isInstanceOf(ModelException.class)
        .isNotInstanceOf(NonRetryableModelException.class);
    assertThat(e.provider()).isEqualTo("openai");
    assertThat(e.httpStatus()).isEqualTo(400);
    assertThat(e.errorCode()).isEqualTo("context_length_exceeded");
    assertThat(e.promptTokens()).hasValue(10);
    assertThat(e.contextWindow()).isEmpty();
    assertThat(e.hasPartialOutput()).isTrue();
    assertThat(new AuthenticationException("no", ModelError.of("x", 401), null))
        .isInstanceOf(NonRetryableModelException.class);
    assertThat(new ModelError("p", 1, null, null, "x".repeat(5000)).bodyExcerpt())
        .hasSize(ModelError.MAX_EXCERPT + 1);
  }
}
