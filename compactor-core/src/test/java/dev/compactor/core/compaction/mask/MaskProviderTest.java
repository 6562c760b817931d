package dev.compactor.core.compaction.mask;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.OutputArchive;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class MaskProviderTest {
  private static final String BIG_OUTPUT =
      "Traceback (most recent call last):\n"
          + "  File \"src/foo.py\", line 41, in lookup\n"
          + "x = 1\n".repeat(400)
          + "KeyError: 'missing'\nFAILED test_bar\n";

  private final MaskProvider mask = new MaskProvider();

  /** System + user, then {@code outputs} steps of one call and one big result each. */
  private static List<Message> session(int outputs) {
    List<Message> m = new ArrayList<>();
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    m.add(Message.builder(Role.SYSTEM).id("sys").content("You are an agent.").timestamp(t).build());
    m.add(Message.builder(Role.USER).id("u").content("Fix it.").timestamp(t).build());
    for (int i = 0; i < outputs; i++) {
      t = t.plusSeconds(10);
      m.add(
          Message.builder(Role.ASSISTANT)
              .id("a" + i)
              .toolCalls(List.of(new ToolCall("c" + i, "shell", "{\"command\":\"pytest\"}")))
              .timestamp(t)
              .build());
      m.add(
          Message.builder(Role.TOOL)
              .id("r" + i)
              .toolCallId("c" + i)
              .content(i + ": " + BIG_OUTPUT)
              .timestamp(t.plusSeconds(1))
              .build());
    }
    return m;
  }

  private static CompressionConfig config(Integer limit) {
    return CompressionConfig.builder().limit(limit).build();
  }

  private static List<String> maskedIds(CompactionResult r) {
    return r.messages().stream()
        .filter(x -> x.content().startsWith(MaskProvider.PLACEHOLDER_PREFIX))
        .map(x -> x.id().value())
        .toList();
  }

  @Test
  void name_isMask() {
    assertThat(mask.name()).isEqualTo("mask");
  }

  @Test
  void shouldCompress_withoutLimit_isFalse() {
    assertThat(mask.shouldCompress(session(40), config(null))).isFalse();
  }

  @Test
  void shouldCompress_underLimit_isFalse_overLimit_isTrue() {
    List<Message> s = session(40);
    assertThat(mask.shouldCompress(s, config(10_000_000))).isFalse();
    assertThat(mask.shouldCompress(s, config(1_000))).isTrue();
  }

  @Test
  void shouldCompress_overLimit_butLessThanABatchDue_isFalse() {
    // 19 outputs, keep_last 10: 9 are due, less than the batch of 10.
    assertThat(mask.shouldCompress(session(19), config(1_000))).isFalse();
    assertThat(mask.shouldCompress(session(20), config(1_000))).isTrue();
  }

  @Test
  void compress_masksAllButTheLastTen_roundedDownToABatchOfTen() {
    assertThat(maskedIds(mask.compress(session(25), config(1_000))))
        .containsExactlyElementsOf(
            IntStream.range(0, 10).mapToObj(i -> "r" + i + "~masked").toList());
    assertThat(maskedIds(mask.compress(session(29), config(1_000)))).hasSize(10);
    assertThat(maskedIds(mask.compress(session(30), config(1_000)))).hasSize(20);
  }

  @Test
  void compress_keepsRoleCallIdTimestamp_givesNewIdAndProvenance() {
    List<Message> s = session(20);
    CompactionResult r = mask.compress(s, config(1_000));
    Message source = s.get(3); // r0
    Message masked = r.messages().get(3);
    assertThat(masked.role()).isEqualTo(Role.TOOL);
    assertThat(masked.toolCallId()).isEqualTo("c0");
    assertThat(masked.timestamp()).isEqualTo(source.timestamp());
    assertThat(masked.id()).isEqualTo(MessageId.of("r0~masked"));
    assertThat(r.provenance()).containsEntry(masked.id(), List.of(source.id()));
    assertThat(r.messages()).hasSameSizeAs(s);
    assertThat(r.messages().get(2)).isSameAs(s.get(2));
    assertThat(r.limitations()).first().asString().startsWith("masked 10 tool output(s)");
    assertThat(r.limitations().get(1)).startsWith("still ").contains("over the limit of 1,000");
  }

  @Test
  void placeholder_countsTokens_keepsMentions_andEndsWithTheArchiveReference() {
    List<Message> s = session(20);
    List<Message> saved = new ArrayList<>();
    OutputArchive archive =
        (source, content) -> {
          synchronized (saved) {
            saved.add(source);
          }
          return "Full output saved to: /tmp/out/" + source.id() + ".txt";
        };
    CompressionConfig cfg = CompressionConfig.builder().limit(1_000).archive(archive).build();
    Message masked = mask.compress(s, cfg).messages().get(3);
    int tokens = cfg.counter().countText(s.get(3).content());
    assertThat(masked.content())
        .isEqualTo(
            String.format(
                java.util.Locale.ROOT,
                "[Output masked - %,d tokens; mentioned: KeyError, test_bar, src/foo.py, line 41]"
                    + " Full output saved to: /tmp/out/r0.txt",
                tokens));
    assertThat(tokens).isGreaterThan(500);
    assertThat(saved).hasSize(10).first().isEqualTo(s.get(3));
  }

  @Test
  void placeholder_listsTheCodeNamesOfTheOutput_thatTheRestOfTheViewDoesNotName() {
    List<Message> s = new ArrayList<>(session(20));
    Message r0 = s.get(3);
    String code =
        "def parse_header(raw):\n    return HeaderBlock(raw)\n"
            + "def check_tuples(x):\n    return x\n"
            + "y = 1\n".repeat(200);
    s.set(3, r0.toBuilder().content(code).build());
    // the user names check_tuples elsewhere in the view: no need to repeat it
    s.set(1, s.get(1).toBuilder().content("Fix check_tuples.").build());
    CompactionResult r = mask.compress(s, config(1_000));
    String placeholder = r.messages().get(3).content();
    assertThat(placeholder)
        .startsWith(MaskProvider.PLACEHOLDER_PREFIX)
        .contains("names: `parse_header`, `HeaderBlock`")
        .doesNotContain("check_tuples");
    // every other placeholder of the batch names the same traceback: its names are said once
    assertThat(r.messages().get(5).content()).doesNotContain("names:");
    CompressionConfig none =
        CompressionConfig.builder().limit(1_000).extraConfig(Map.of(MaskProvider.NAMES, 0)).build();
    assertThat(mask.compress(s, none).messages().get(3).content()).doesNotContain("names:");
  }

  @Test
  void compress_isStableBetweenBatches_andNeverRemasks() {
    List<Message> s = session(30);
    CompactionResult first = mask.compress(s, config(1_000));
    // Nine more outputs later, the boundary has not moved: nothing changes.
    List<Message> later = new ArrayList<>(first.messages());
    later.addAll(session(39).subList(s.size(), session(39).size()));
    CompactionResult second = mask.compress(later, config(1_000));
    assertThat(second.messages()).isEqualTo(later);
    assertThat(second.provenance()).isEmpty();
    // The tenth moves it by one batch; the already masked outputs stay as they are.
    List<Message> tenth = new ArrayList<>(first.messages());
    tenth.addAll(session(40).subList(s.size(), session(40).size()));
    CompactionResult third = mask.compress(tenth, config(1_000));
    assertThat(third.provenance()).hasSize(10);
    assertThat(third.messages().subList(0, s.size() - 20))
        .isEqualTo(first.messages().subList(0, s.size() - 20));
  }

  @Test
  void compress_neverTouchesPinned_keepHead_orPendingResults() {
    List<Message> s = new ArrayList<>(session(30));
    s.set(5, s.get(5).toBuilder().pinned(true).build()); // r1
    // A pending last turn: two calls, one answered.
    Instant t = s.get(s.size() - 1).timestamp().plusSeconds(5);
    s.add(
        Message.builder(Role.ASSISTANT)
            .id("ap")
            .toolCalls(
                List.of(new ToolCall("p1", "shell", "{}"), new ToolCall("p2", "shell", "{}")))
            .timestamp(t)
            .build());
    s.add(
        Message.builder(Role.TOOL)
            .id("rp")
            .toolCallId("p1")
            .content(BIG_OUTPUT)
            .timestamp(t)
            .build());
    CompressionConfig cfg =
        CompressionConfig.builder()
            .limit(1_000)
            .keepHead(4) // covers r0
            .extraConfig(Map.of("keep_last", 0, "batch", 1))
            .build();
    CompactionResult r = mask.compress(s, cfg);
    assertThat(maskedIds(r))
        .doesNotContain("r0~masked", "r1~masked", "rp~masked")
        .contains("r2~masked", "r29~masked");
    assertThat(r.messages().get(3)).isSameAs(s.get(3));
    assertThat(r.messages().get(5)).isSameAs(s.get(5));
    assertThat(r.messages().get(s.size() - 1)).isSameAs(s.get(s.size() - 1));
  }

  @Test
  void compress_leavesSmallOutputs() {
    List<Message> s = new ArrayList<>(session(20));
    s.set(3, s.get(3).withContent("Edited 57 bytes."));
    CompactionResult r = mask.compress(s, config(1_000));
    assertThat(r.messages().get(3)).isSameAs(s.get(3));
    assertThat(maskedIds(r)).hasSize(9);
  }

  @Test
  void compress_doesNotMaskAnOutputTwice() {
    List<Message> s = session(40);
    CompressionConfig cfg =
        CompressionConfig.builder().extraConfig(Map.of("keep_last", 20)).build();
    CompactionResult once = mask.compress(s, cfg);
    CompressionConfig all = CompressionConfig.builder().extraConfig(Map.of("keep_last", 0)).build();
    CompactionResult twice = mask.compress(once.messages(), all);
    assertThat(twice.provenance().keySet())
        .extracting(MessageId::value)
        .noneMatch(id -> id.endsWith("~masked~masked"))
        .hasSize(20);
  }

  @Test
  void compress_emptyList_isUnchanged() {
    CompactionResult r = mask.compress(List.of(), config(1_000));
    assertThat(r.messages()).isEmpty();
    assertThat(r.coveredThrough()).isEqualTo(-1);
  }

  @Test
  void invalidOptions_failNamingKeyAndValue() {
    CompressionConfig bad =
        CompressionConfig.builder().limit(1_000).extraConfig(Map.of("keep_last", "ten")).build();
    assertThatThrownBy(() -> mask.compress(session(3), bad))
        .isInstanceOf(CompactorException.class)
        .hasMessage(
            "extraConfig \"keep_last\" of context provider mask must be a whole number >= 0, got"
                + " \"ten\"");
    CompressionConfig zeroBatch =
        CompressionConfig.builder().limit(1_000).extraConfig(Map.of("batch", 0)).build();
    assertThatThrownBy(() -> mask.shouldCompress(session(3), zeroBatch))
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("\"batch\"")
        .hasMessageContaining(">= 1, got 0");
  }

  @Test
  void options_acceptWholeNumbersAsStringsOrDoubles() {
    CompressionConfig cfg =
        CompressionConfig.builder().extraConfig(Map.of("keep_last", "5", "batch", 5.0)).build();
    assertThat(maskedIds(mask.compress(session(20), cfg))).hasSize(15);
  }
}
