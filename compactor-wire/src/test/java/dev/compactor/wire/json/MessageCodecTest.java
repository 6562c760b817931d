package dev.compactor.wire.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.CompactorException;
import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class MessageCodecTest {
  private final MessageCodec codec = new MessageCodec();

  static Message fullMessage() {
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("request_id", "req-1");
    extra.put("latency_ms", 1234);
    extra.put("tags", List.of("a", "b"));
    return Message.builder(Role.ASSISTANT)
        .id("m-1")
        .content("Let me look.")
        .reasoning(
            List.of(
                new ReasoningBlock("thinking", "I should list files.", "sig=="),
                new ReasoningBlock("redacted_thinking", "opaque", null)))
        .toolCalls(
            List.of(
                new ToolCall("call_1", "shell", "{\"cmd\":\"ls -la\"}"),
                new ToolCall("call_2", "read", "{\"path\":\"a.txt\"}")))
        .timestamp(Instant.parse("2025-01-02T03:04:05.678Z"))
        .pinned(true)
        .hidden(true)
        .uiOnly(true)
        .metadata(
            new MessageMetadata(
                "gpt-4o",
                "openai",
                new Usage(100, 20, 30, 40, 5),
                new InputFingerprint(3, "abc123", "gpt-4o"),
                extra))
        .build();
  }

  /**
   * {@code call} fails with a {@link MessageFormatException} whose message contains {@code part}.
   */
  private static void assertRefused(ThrowingCallable call, String part) {
    assertThatThrownBy(call).isInstanceOf(MessageFormatException.class).hasMessageContaining(part);
  }

  @Test
  void write_fullMessage_usesSnakeCaseFieldsInFormatOrder() {
    assertThat(codec.writeLine(fullMessage()))
        .isEqualTo(
            "{\"id\":\"m-1\",\"role\":\"assistant\",\"content\":\"Let me look.\","
                + "\"reasoning\":[{\"type\":\"thinking\",\"text\":\"I should list files.\","
                + "\"signature\":\"sig==\"},{\"type\":\"redacted_thinking\",\"text\":\"opaque\"}],"
                + "\"tool_calls\":[{\"id\":\"call_1\",\"name\":\"shell\","
                + "\"arguments\":\"{\\\"cmd\\\":\\\"ls -la\\\"}\"},{\"id\":\"call_2\","
                + "\"name\":\"read\",\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}],"
                + "\"timestamp\":\"2025-01-02T03:04:05.678Z\","
                + "\"pinned\":true,\"hidden\":true,\"ui_only\":true,"
                + "\"metadata\":{\"model\":\"gpt-4o\",\"provider\":\"openai\","
                + "\"usage\":{\"input\":100,\"output\":20,\"cache_read\":30,\"cache_write\":40,"
                + "\"reasoning\":5},\"input\":{\"messages\":3,\"digest\":\"abc123\","
                + "\"model\":\"gpt-4o\"},\"request_id\":\"req-1\",\"latency_ms\":1234,"
                + "\"tags\":[\"a\",\"b\"]}}");
  }

  @Test
  void roundTrip_fullMessage_equalsOriginal() {
    Message m = fullMessage();
    assertThat(codec.readLine(codec.writeLine(m))).isEqualTo(m);
    assertThat(codec.read(codec.write(m))).isEqualTo(m);
  }

  @Test
  void write_defaults_areOmitted() {
    Message m = Message.builder(Role.USER).id("u1").content("hi").build();
    assertThat(codec.writeLine(m))
        .isEqualTo("{\"id\":\"u1\",\"role\":\"user\",\"content\":\"hi\"}");
  }

  @Test
  void write_toolResult_hasToolCallIdAndZeroUsageCountsOmitted() {
    Message m =
        Message.builder(Role.TOOL)
            .id("t1")
            .toolCallId("call_1")
            .content("ok")
            .metadata(MessageMetadata.EMPTY.withUsage(new Usage(7, 0, 0, 0, 0)))
            .build();
    String line = codec.writeLine(m);
    assertThat(line)
        .isEqualTo(
            "{\"id\":\"t1\",\"role\":\"tool\",\"content\":\"ok\",\"tool_call_id\":\"call_1\","
                + "\"metadata\":{\"usage\":{\"input\":7}}}");
    assertThat(codec.readLine(line)).isEqualTo(m);
  }

  @Test
  void read_unknownTopLevelAndMetadataFields_areKeptInExtraAndWrittenBackInPlace() {
    String line =
        "{\"id\":\"x\",\"role\":\"system\",\"content\":\"out\",\"files\":[\"a.py\"],"
            + "\"call_id\":\"c9\",\"metadata\":{\"model\":\"m\",\"cost\":0.25,"
            + "\"nested\":{\"k\":[1,null,true]}},\"quiet\":false}";
    Message m = codec.readLine(line);

    assertThat(m.metadata().model()).isEqualTo("m");
    assertThat(m.metadata().extra())
        .containsEntry("cost", 0.25)
        .containsEntry("nested", Map.of("k", java.util.Arrays.asList(1, null, true)));
    @SuppressWarnings("unchecked")
    Map<String, Object> top =
        (Map<String, Object>) m.metadata().extra().get(MessageCodec.TOP_LEVEL_EXTRA);
    assertThat(top)
        .containsEntry("files", List.of("a.py"))
        .containsEntry("call_id", "c9")
        .containsEntry("quiet", false);

    JsonNode written = codec.write(m);
    assertThat(written).isEqualTo(codec.parseLine(line));
    assertThat(codec.read(written)).isEqualTo(m);
  }

  @Test
  void roundTrip_unicode_isExactAndLineHasNoRawLineBreak() {
    String text =
        "naïve café — 日本語 — עברית — 👩‍👩‍👧‍👦 — e\u0301 — \u2028\u2029 — tab\tnl\ncr\r"
            + " — quote\" backslash\\ — nul\u0000 — \uFFFD";
    Message m =
        Message.builder(Role.USER)
            .id("ü-1")
            .content(text)
            .reasoning(List.of(new ReasoningBlock("think", text, text)))
            .build();
    String line = codec.writeLine(m);

    assertThat(line).doesNotContain("\n").doesNotContain("\r");
    assertThat(line).contains("日本語"); // written as UTF-8, not escaped
    assertThat(codec.readLine(line)).isEqualTo(m);
    String viaBytes = new String(line.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
    assertThat(codec.readLine(viaBytes)).isEqualTo(m);
  }

  @Test
  void roundTrip_unpairedSurrogate_survivesUtf8Encoding() {
    Message m = Message.builder(Role.USER).id("s").content("broken \uD83D pair \uDC00 é").build();
    String line = codec.writeLine(m);
    String viaBytes = new String(line.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);

    assertThat(codec.readLine(viaBytes).content()).isEqualTo(m.content());
  }

  @Test
  void roundTrip_hugeContent_beyondJacksonDefaultStringLimit() {
    String big = "0123456789abcdef".repeat(1_400_000); // 22.4M chars > Jackson's 20M default
    Message m = Message.toolResult("call_1", big);
    Message back = codec.readLine(codec.writeLine(m));
    assertThat(back.content()).hasSize(big.length());
    assertThat(back).isEqualTo(m);
  }

  @Test
  void read_timestampVariants_allBecomeInstants() {
    assertThat(
            codec
                .readLine("{\"id\":\"a\",\"role\":\"user\",\"timestamp\":\"2024-05-01T10:00:00\"}")
                .timestamp())
        .isEqualTo(Instant.parse("2024-05-01T10:00:00Z"));
    assertThat(
            codec
                .readLine(
                    "{\"id\":\"a\",\"role\":\"user\",\"timestamp\":\"2024-05-01T12:00:00+02:00\"}")
                .timestamp())
        .isEqualTo(Instant.parse("2024-05-01T10:00:00Z"));
  }

  @Test
  void read_missingContent_isEmptyString() {
    assertThat(codec.readLine("{\"id\":\"a\",\"role\":\"assistant\"}").content()).isEmpty();
  }

  @Test
  void read_wrongFlagType_failsNamingFieldAndValue() {
    assertThatThrownBy(() -> codec.readLine("{\"id\":\"a\",\"role\":\"user\",\"pinned\":\"yes\"}"))
        .isInstanceOf(MessageFormatException.class)
        .isInstanceOf(CompactorException.class)
        .hasMessageContaining("pinned")
        .hasMessageContaining("\"yes\"")
        .hasMessageContaining("message a");
  }

  @Test
  void read_unknownRole_failsNamingIt() {
    assertRefused(() -> codec.readLine("{\"id\":\"a\",\"role\":\"robot\"}"), "robot");
  }

  @Test
  void read_missingId_fails() {
    assertRefused(() -> codec.readLine("{\"role\":\"user\",\"content\":\"x\"}"), "field id");
  }

  @Test
  void read_negativeUsage_failsNamingField() {
    assertThatThrownBy(
            () ->
                codec.readLine(
                    "{\"id\":\"a\",\"role\":\"assistant\",\"metadata\":{\"usage\":{\"output\":-1}}}"))
        .isInstanceOf(MessageFormatException.class)
        .hasMessageContaining("metadata.usage.output")
        .hasMessageContaining("-1");
  }

  @Test
  void read_toolCallsOnUserMessage_fails() {
    assertRefused(
        () ->
            codec.readLine(
                "{\"id\":\"a\",\"role\":\"user\",\"tool_calls\":[{\"id\":\"c\",\"name\":\"n\"}]}"),
        "only assistant messages carry tool calls");
  }

  @Test
  void read_reservedKeyInMetadata_fails() {
    assertRefused(
        () -> codec.readLine("{\"id\":\"a\",\"role\":\"user\",\"metadata\":{\"$top_level\":{}}}"),
        "$top_level");
  }

  @Test
  void readLine_trailingGarbageOrTruncatedJson_fails() {
    assertRefused(() -> codec.readLine("{\"id\":\"a\",\"role\":\"user\"} x"), "invalid JSON");
    assertRefused(() -> codec.readLine("{\"id\":\"a\",\"role\":\"us"), "invalid JSON");
  }

  @Test
  void write_extraKeyNamedLikeTypedMetadataField_fails() {
    Message m =
        Message.builder(Role.USER)
            .id("a")
            .metadata(new MessageMetadata(null, null, null, null, Map.of("model", "x")))
            .build();
    assertRefused(() -> codec.write(m), "\"model\"");
  }

  @Test
  void write_topLevelExtraNamingNativeField_fails() {
    Message m =
        Message.builder(Role.USER)
            .id("a")
            .metadata(
                new MessageMetadata(
                    null,
                    null,
                    null,
                    null,
                    Map.of(MessageCodec.TOP_LEVEL_EXTRA, Map.of("content", "sneaky"))))
            .build();
    assertRefused(() -> codec.write(m), "\"content\"");
  }

  @Test
  void isNative_acceptsNativeRecords_rejectsForeignShapes() {
    assertThat(MessageCodec.isNative(codec.write(fullMessage()))).isTrue();
    // OpenAI chat message: no id
    assertThat(MessageCodec.isNative(codec.parseLine("{\"role\":\"user\",\"content\":\"hi\"}")))
        .isFalse();
    // Claude Code transcript line: content is an array of blocks, role is not a role
    assertThat(
            MessageCodec.isNative(
                codec.parseLine(
                    "{\"uuid\":\"u\",\"id\":\"x\",\"type\":\"user\",\"role\":\"human\",\"content\":[]}")))
        .isFalse();
    assertThat(
            MessageCodec.isNative(
                codec.parseLine(
                    "{\"id\":\"x\",\"role\":\"user\",\"content\":[{\"type\":\"text\"}]}")))
        .isFalse();
    assertThat(MessageCodec.isNative(codec.parseLine("[1,2]"))).isFalse();
  }

  /** The scalars converted without the mapper come out as the mapper makes them. */
  @Test
  void plainAndJsonValues_matchTheMappers() throws Exception {
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    Map<String, Object> nested = new LinkedHashMap<>();
    nested.put("n", 1);
    nested.put("list", List.of("x", 2L, true));
    List<Object> values =
        List.of(
            "text",
            "",
            "✓ \uD83D\uDE00",
            0,
            -7,
            Integer.MAX_VALUE,
            1L << 40,
            Long.MIN_VALUE,
            true,
            false,
            2.5,
            new java.math.BigInteger("123456789012345678901234567890"),
            List.of(),
            List.of("a", 1, List.of(false)),
            nested);
    for (Object v : values) {
      JsonNode expected = mapper.valueToTree(v);
      assertThat(codec.jsonValue(v)).as("jsonValue(%s)", v).isEqualTo(expected);
      assertThat(mapper.writeValueAsString(codec.jsonValue(v)))
          .isEqualTo(mapper.writeValueAsString(v));
      Object plain = codec.plainValue(expected);
      Object viaMapper = mapper.treeToValue(expected, Object.class);
      assertThat(plain).as("plainValue(%s)", expected).isEqualTo(viaMapper);
      assertThat(plain == null ? null : plain.getClass())
          .as("type of plainValue(%s)", expected)
          .isEqualTo(viaMapper == null ? null : viaMapper.getClass());
    }
  }
}
