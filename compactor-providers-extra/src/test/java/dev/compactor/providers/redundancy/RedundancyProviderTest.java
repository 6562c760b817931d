package dev.compactor.providers.redundancy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RedundancyProviderTest {
  private static final String FILE_V1 = "class A {\n" + "  int x = 1;\n".repeat(60) + "}\n";
  private static final String FILE_V2 = FILE_V1.replace("x = 1", "x = 2");
  private static final CompressionConfig CFG = CompressionConfig.builder().build();

  private final RedundancyProvider provider = new RedundancyProvider();

  /** One step: an assistant call and its result. */
  private static void step(List<Message> m, String id, String tool, String args, String output) {
    m.add(
        Message.builder(Role.ASSISTANT)
            .id("a-" + id)
            .toolCalls(List.of(new ToolCall(id, tool, args)))
            .build());
    m.add(Message.builder(Role.TOOL).id("r-" + id).toolCallId(id).content(output).build());
  }

  /** A call of {@code tool} with {@code args} and its result {@code output}. */
  private record Call(String tool, String args, String output) {}

  private static Call call(String tool, String args, String output) {
    return new Call(tool, args, output);
  }

  /**
   * The user's "go", then each call as a step with the call id c1, c2, … (a list that takes more
   * steps).
   */
  private static List<Message> conversation(Call... calls) {
    List<Message> m = new ArrayList<>();
    m.add(Message.user("go"));
    for (int i = 0; i < calls.length; i++) {
      step(m, "c" + (i + 1), calls[i].tool(), calls[i].args(), calls[i].output());
    }
    return m;
  }

  @Test
  void identicalOutputs_earlierCopyPointsToTheLaterOne() {
    List<Message> m =
        conversation(
            call("shell", "{\"command\":\"ls -R\"}", FILE_V1),
            call("shell", "{\"command\":\"find .\"}", FILE_V1));
    CompactionResult r = provider.compress(m, CFG);
    assertThat(r.messages().get(2).content())
        .isEqualTo(
            "[Same output as the later result of call c2 (message r-c2); removed as duplicate]");
    assertThat(r.messages().get(2).id()).isEqualTo(MessageId.of("r-c1~dedup"));
    assertThat(r.messages().get(2).toolCallId()).isEqualTo("c1");
    assertThat(r.messages().get(2).role()).isEqualTo(Role.TOOL);
    assertThat(r.messages().get(4)).isSameAs(m.get(4));
    assertThat(r.provenance())
        .containsEntry(MessageId.of("r-c1~dedup"), List.of(MessageId.of("r-c1")));
  }

  @Test
  void sameFileReadTwice_differentContent_isSuperseded_andArchived() {
    List<Message> m =
        conversation(
            call("read_file", "{\"path\":\"src/A.java\"}", FILE_V1),
            call("edit_file", "{\"path\":\"src/A.java\"}", "Edited."),
            call("read_file", "{\"path\":\"src/A.java\"}", FILE_V2));
    CompressionConfig cfg =
        CompressionConfig.builder().archive((s, c) -> "Full output saved to: /x/" + s.id()).build();
    CompactionResult r = provider.compress(m, cfg);
    assertThat(r.messages().get(2).content())
        .isEqualTo(
            "[Superseded: read again later, see the result of call c3 (message r-c3); earlier"
                + " output removed] Full output saved to: /x/r-c1");
    assertThat(r.messages().get(6)).isSameAs(m.get(6));
  }

  @Test
  void catInAShell_countsAsARead() {
    List<Message> m =
        conversation(
            call("bash", "{\"command\":\"cat src/A.java\"}", FILE_V1),
            call("bash", "{\"command\": \"cat src/A.java \"}", FILE_V2));
    assertThat(provider.compress(m, CFG).messages().get(2).content()).startsWith("[Superseded:");
  }

  @Test
  void readThreeTimes_bothEarlierCopiesPointToAVerbatimOne() {
    List<Message> m =
        conversation(
            call("read_file", "{\"path\":\"A\"}", FILE_V1),
            call("read_file", "{\"path\":\"A\"}", FILE_V1),
            call("read_file", "{\"path\":\"A\"}", FILE_V2));
    CompactionResult r = provider.compress(m, CFG);
    assertThat(r.messages().get(2).content()).contains("call c3 (message r-c3)");
    assertThat(r.messages().get(4).content()).contains("call c3 (message r-c3)");
    assertThat(r.messages().get(6)).isSameAs(m.get(6));
  }

  @Test
  void differentArguments_orOtherTools_areNotReads() {
    List<Message> m =
        conversation(
            call("read_file", "{\"path\":\"A\",\"offset\":1}", FILE_V1),
            call("read_file", "{\"path\":\"A\",\"offset\":50}", FILE_V2),
            call("shell", "{\"command\":\"mvn test\"}", FILE_V1 + "run 1"),
            call("shell", "{\"command\":\"mvn test\"}", FILE_V1 + "run 2"));
    assertThat(provider.compress(m, CFG).messages()).isEqualTo(m);
  }

  @Test
  void pinned_keepHead_andShortOutputs_stay() {
    List<Message> m =
        conversation(
            call("shell", "{}", FILE_V1),
            call("shell", "{}", "ok"),
            call("shell", "{}", "ok"),
            call("shell", "{}", FILE_V1));
    m.set(2, m.get(2).toBuilder().pinned(true).build());
    assertThat(provider.compress(m, CFG).messages()).isEqualTo(m);
    m.set(2, m.get(2).toBuilder().pinned(false).build());
    assertThat(provider.compress(m, CompressionConfig.builder().keepHead(3).build()).messages())
        .isEqualTo(m);
  }

  @Test
  void shouldCompress_whenTheRedundantShareExceedsThirtyPercent_orOverTheLimit() {
    List<Message> m =
        conversation(
            call("shell", "{}", FILE_V1),
            call("shell", "{}", FILE_V2),
            call("shell", "{}", FILE_V2.replace("class A", "class B")));
    assertThat(provider.shouldCompress(m, CFG)).isFalse();
    step(m, "c4", "shell", "{}", FILE_V1); // a quarter of the output tokens is redundant
    assertThat(provider.shouldCompress(m, CFG)).isFalse();
    assertThat(provider.shouldCompress(m, CompressionConfig.builder().limit(10).build())).isTrue();
    int tokens = (int) CompressionConfig.builder().build().counter().countMessages(m);
    assertThat(provider.shouldCompress(m, CompressionConfig.builder().limit(tokens).build()))
        .as("a view of exactly limit tokens fits")
        .isFalse();
    assertThat(provider.shouldCompress(m, CompressionConfig.builder().limit(tokens - 1).build()))
        .isTrue();
    assertThat(
            provider.shouldCompress(
                m, CompressionConfig.builder().extraConfig(Map.of("min_share", 0.2)).build()))
        .isTrue();
    step(m, "c5", "shell", "{}", FILE_V2); // now two fifths
    assertThat(provider.shouldCompress(m, CFG)).isTrue();
  }

  @Test
  void invalidOptions_failNamingKeyAndValue() {
    assertThatThrownBy(
            () ->
                provider.compress(
                    List.of(),
                    CompressionConfig.builder().extraConfig(Map.of("min_share", "most")).build()))
        .isInstanceOf(CompactorException.class)
        .hasMessage(
            "extraConfig \"min_share\" of context provider redundancy must be a number in [0, 1),"
                + " got \"most\"");
    assertThatThrownBy(
            () ->
                provider.shouldCompress(
                    List.of(),
                    CompressionConfig.builder().extraConfig(Map.of("read_tools", "cat")).build()))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("\"read_tools\"")
        .hasMessageContaining("must be a list of tool names, got cat");
  }

  @Test
  void readTools_option_replacesTheDefaults() {
    List<Message> m =
        conversation(
            call("fetch_doc", "{\"id\":1}", FILE_V1), call("fetch_doc", "{\"id\":1}", FILE_V2));
    assertThat(provider.compress(m, CFG).messages()).isEqualTo(m);
    CompressionConfig cfg =
        CompressionConfig.builder().extraConfig(Map.of("read_tools", List.of("Fetch_Doc"))).build();
    assertThat(provider.compress(m, cfg).messages().get(2).content()).startsWith("[Superseded:");
  }
}
