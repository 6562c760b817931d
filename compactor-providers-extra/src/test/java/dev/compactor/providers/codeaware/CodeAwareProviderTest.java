package dev.compactor.providers.codeaware;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CodeAwareProviderTest {
  private static final String LONG =
      "I changed the rounding. ".repeat(1)
          + "It now happens per line. This matches what accounting expects. We discussed it at"
          + " length. The tests agree. Everything else stays as it was. "
          + "More words here to explain. ".repeat(20)
          + "\n\n```java\nx = round(x);\n```\n\nThat is all. Thanks for reading.";

  private final CodeAwareProvider provider = new CodeAwareProvider();

  private static List<Message> conversation(Message candidate) {
    List<Message> m = new ArrayList<>();
    m.add(Message.user("Fix rounding."));
    m.add(candidate);
    m.add(Message.user("Thanks."));
    m.add(Message.assistant("Done."));
    m.add(Message.user("Next."));
    return m;
  }

  @Test
  void name_isCodeAware() {
    assertThat(provider.name()).isEqualTo("code-aware");
  }

  @Test
  void compress_condensesOldAssistantProse_keepsCode_newIdAndProvenance() {
    Message a =
        Message.builder(dev.compactor.core.message.Role.ASSISTANT).id("a1").content(LONG).build();
    CompactionResult r = provider.compress(conversation(a), CompressionConfig.builder().build());
    Message c = r.messages().get(1);
    assertThat(c.id()).isEqualTo(MessageId.of("a1~code-aware"));
    assertThat(r.provenance()).containsEntry(c.id(), List.of(a.id()));
    assertThat(c.content())
        .startsWith("I changed the rounding. […]")
        .contains("```java\nx = round(x);\n```");
    assertThat(c.content().length()).isLessThan(LONG.length() / 3);
    assertThat(r.limitations()).singleElement().asString().contains("code kept verbatim");
  }

  @Test
  void compress_leavesRecent_reasoning_toolCalling_pinned_andCodelessMessages() {
    CompressionConfig cfg = CompressionConfig.builder().build();
    Message.Builder b = Message.builder(dev.compactor.core.message.Role.ASSISTANT).content(LONG);
    List<Message> cases =
        List.of(
            b.id("thinking").reasoning(List.of(new ReasoningBlock("thinking", "t", "sig"))).build(),
            Message.builder(dev.compactor.core.message.Role.ASSISTANT)
                .id("pinned")
                .content(LONG)
                .pinned(true)
                .build(),
            Message.assistant(LONG.replace("```", "'''")));
    for (Message m : cases) {
      List<Message> conv = conversation(m);
      assertThat(provider.compress(conv, cfg).messages()).as(m.id().value()).isEqualTo(conv);
    }
    // Two from the end: too recent.
    List<Message> recent = new ArrayList<>(conversation(Message.user("x")));
    recent.add(3, Message.assistant(LONG));
    assertThat(provider.compress(recent, cfg).messages()).isEqualTo(recent);
    // With tool calls: the calls and their wording stay.
    List<Message> calling = new ArrayList<>();
    calling.add(Message.user("go"));
    calling.add(Message.assistant(LONG, List.of(new ToolCall("c1", "shell", "{}"))));
    calling.add(Message.toolResult("c1", "ok"));
    calling.add(Message.assistant("a"));
    calling.add(Message.user("b"));
    calling.add(Message.assistant("c"));
    assertThat(provider.compress(calling, cfg).messages()).isEqualTo(calling);
  }

  @Test
  void compress_twice_changesNothingTheSecondTime() {
    CompressionConfig cfg = CompressionConfig.builder().build();
    CompactionResult once = provider.compress(conversation(Message.assistant(LONG)), cfg);
    CompactionResult twice = provider.compress(once.messages(), cfg);
    assertThat(twice.messages()).isEqualTo(once.messages());
    assertThat(twice.provenance()).isEmpty();
  }

  @Test
  void shouldCompress_above90PercentOfTheLimit_only() {
    List<Message> conv = conversation(Message.assistant(LONG));
    long tokens = CompressionConfig.builder().build().counter().countMessages(conv);
    assertThat(provider.shouldCompress(conv, CompressionConfig.builder().build())).isFalse();
    assertThat(
            provider.shouldCompress(
                conv, CompressionConfig.builder().limit((int) (tokens / 0.9) + 2).build()))
        .isFalse();
    assertThat(
            provider.shouldCompress(
                conv, CompressionConfig.builder().limit((int) (tokens / 0.9) - 2).build()))
        .isTrue();
  }
}
