package dev.compactor.models.anthropic;

import static dev.compactor.models.testing.Fixtures.KEY;
import static dev.compactor.models.testing.Fixtures.assertJsonEquals;
import static dev.compactor.models.testing.Fixtures.golden;
import static dev.compactor.models.testing.Fixtures.options;
import static dev.compactor.models.testing.Fixtures.streamFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.AppliedEdit;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.models.AnthropicContextManagement;
import dev.compactor.models.AnthropicContextManagement.ClearThinking;
import dev.compactor.models.AnthropicContextManagement.ClearToolUses;
import dev.compactor.models.AnthropicContextManagement.Compact;
import dev.compactor.models.AnthropicContextManagement.Trigger;
import dev.compactor.models.AnthropicContextManagement.TriggerUnit;
import dev.compactor.models.ResponsesCompaction;
import dev.compactor.models.testing.Conversations;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.RecordingStreamListener;
import dev.compactor.testkit.model.RecordingStreamListener.Kind;
import dev.compactor.testkit.model.Reply;
import dev.compactor.wire.json.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AnthropicMessagesModelTest {
  private final FakeModelServer server = FakeModelServer.start();
  private final List<Duration> sleeps = new ArrayList<>();

  @AfterEach
  void stop() {
    server.close();
  }

  private AnthropicMessagesModel client() {
    return new AnthropicMessagesModel("claude-sonnet-4-5", options(server.url(), sleeps).build());
  }

  private static List<Message> weatherWithCompaction() {
    return Conversations.weatherWithCompaction(
        List.of(
            new CompactionItem(
                "anthropic",
                Map.of(
                    "type", "compaction", "content", "Summary: the user asked for the weather.")),
            new CompactionItem(
                "openai", Map.of("type", "compaction", "encrypted_content", "not-for-anthropic"))));
  }

  private static ChatRequest weatherRequest() {
    return ChatRequest.builder()
        .messages(weatherWithCompaction())
        .tools(List.of(Conversations.WEATHER, Conversations.TIME))
        .temperature(0.2)
        .extension(
            AnthropicContextManagement.of(
                new ClearToolUses(
                    new Trigger(TriggerUnit.INPUT_TOKENS, 30_000),
                    3,
                    5_000L,
                    List.of("get_time"),
                    false),
                ClearThinking.keepTurns(1),
                new Compact(120_000L, true, "Keep code.")))
        .build();
  }

  @Test
  void chat_sendsGoldenBody_withHeadersAndBetas() {
    server.enqueue(Reply.raw(200, golden("anthropic/response-compacted.json")));

    client().chat(weatherRequest());

    RecordedRequest req = server.lastRequest();
    assertThat(req.path()).isEqualTo("/v1/messages");
    assertThat(req.headers())
        .containsEntry("x-api-key", KEY)
        .containsEntry("anthropic-version", "2023-06-01")
        .containsEntry("anthropic-beta", "context-management-2025-06-27,compact-2026-01-12")
        .doesNotContainKey("authorization");
    assertJsonEquals(req.json(), "anthropic/request-weather.json");
  }

  @Test
  void chat_parsesThinkingToolUsesCompactionEditsAndUsage() {
    server.enqueue(Reply.raw(200, golden("anthropic/response-compacted.json")));

    ChatResponse r = client().chat(weatherRequest());

    assertThat(r.text()).isEqualTo("Checking both.");
    assertThat(r.message().reasoning())
        .containsExactly(new ReasoningBlock("thinking", "Two zones.", "sig-2"));
    assertThat(r.message().toolCalls())
        .containsExactly(
            new ToolCall("toolu_1", "get_time", "{\"tz\":\"Europe/Oslo\"}"),
            new ToolCall("toolu_2", "get_time", "{\"tz\":\"Europe/Paris\"}"));
    assertThat(r.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(r.usage()).isEqualTo(new Usage(2300, 210, 18000, 400, 0));
    assertThat(r.usage().totalInput()).isEqualTo(20700);
    assertThat(r.compaction().compacted()).isTrue();
    assertThat(r.compaction().items().get(0).content())
        .isEqualTo("Summary of the conversation: weather asked.");
    assertThat(r.compaction().compactionUsage()).isEqualTo(new Usage(180000, 3500, 0, 0, 0));
    assertThat(r.compaction().appliedEdits())
        .containsExactly(
            new AppliedEdit("clear_tool_uses_20250919", 8, 0, 50000),
            new AppliedEdit("clear_thinking_20251015", 0, 3, 1200));
    assertThat(r.model()).isEqualTo("claude-sonnet-4-5-20250929");
    assertThat(r.message().metadata().provider()).isEqualTo("anthropic");
    // The usage anchor is keyed by the qualified provider/model.
    assertThat(r.message().metadata().input().model()).isEqualTo("anthropic/claude-sonnet-4-5");
    assertThat(client().api()).isEqualTo(ModelApi.ANTHROPIC_MESSAGES);
  }

  @Test
  void conversationShape_systemsJoined_sameRolesMerged_toolResultsFirst_leadingUserInjected() {
    JsonNode body =
        client()
            .body(
                ChatRequest.of(
                    List.of(
                        Message.system("one"),
                        Message.assistant("I start.", List.of(new ToolCall("t1", "ls", ""))),
                        Message.system("two"),
                        Message.user("note first"),
                        Message.toolResult("t1", "a.txt"),
                        Message.user("and more"),
                        Message.builder(Role.ASSISTANT)
                            .reasoning(
                                List.of(
                                    new ReasoningBlock("redacted_thinking", "opaque==", null),
                                    new ReasoningBlock("reasoning", "openai summary", "enc"),
                                    new ReasoningBlock("thinking", "unsigned", null)))
                            .content("Done.")
                            .build())),
                false);
    assertThat(body.get("system").asText()).isEqualTo("one\n\ntwo");
    assertThat(Json.write(body.get("messages")))
        .isEqualTo(
            "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"(conversation start)\"}]},"
                + "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"I start.\"},"
                + "{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"ls\",\"input\":{}}]},"
                + "{\"role\":\"user\",\"content\":["
                + "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"a.txt\"},"
                + "{\"type\":\"text\",\"text\":\"note first\"},"
                + "{\"type\":\"text\",\"text\":\"and more\"}]},"
                + "{\"role\":\"assistant\",\"content\":["
                + "{\"type\":\"redacted_thinking\",\"data\":\"opaque==\"},"
                + "{\"type\":\"text\",\"text\":\"Done.\"}]}]");
    assertThat(body.get("max_tokens").asInt()).isEqualTo(8192);
    assertThat(body.has("context_management")).isFalse();
  }

  @Test
  void noContextManagement_meansNoBetaHeader_andExplicitMaxTokensWins() {
    server.enqueue(
        Reply.raw(
            200,
            "{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"c\",\"content\":"
                + "[{\"type\":\"text\",\"text\":\"hi\"}],\"stop_reason\":\"end_turn\","
                + "\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}"));
    client()
        .chat(
            ChatRequest.builder()
                .messages(List.of(Message.user("hi")))
                .maxOutputTokens(100)
                .build());
    assertThat(server.lastRequest().headers()).doesNotContainKey("anthropic-beta");
    assertThat(server.lastRequest().json().get("max_tokens").asInt()).isEqualTo(100);
  }

  @Test
  void stopReasons_contextWindowExceededAndCompactionPause_areReturned() {
    server.enqueue(
        Reply.raw(
            200,
            "{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
                + "\"text\":\"trunc\"}],\"stop_reason\":\"model_context_window_exceeded\","
                + "\"usage\":{\"input_tokens\":199990,\"output_tokens\":10}}"));
    server.enqueue(
        Reply.raw(
            200,
            "{\"id\":\"m2\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":"
                + "\"compaction\",\"content\":\"Summary.\"}],\"stop_reason\":\"compaction\","
                + "\"usage\":{\"input_tokens\":10,\"output_tokens\":10}}"));
    AnthropicMessagesModel model = client();
    ChatResponse first = model.chat(ChatRequest.of(List.of(Message.user("long"))));
    assertThat(first.finishReason()).isEqualTo(FinishReason.CONTEXT_WINDOW_EXCEEDED);
    assertThat(first.text()).isEqualTo("trunc");
    ChatResponse paused = model.chat(ChatRequest.of(List.of(Message.user("long"))));
    assertThat(paused.finishReason()).isEqualTo(FinishReason.COMPACTION);
    assertThat(paused.text()).isEmpty();
    // sent back, the paused reply is just its compaction block
    JsonNode body =
        model.body(
            ChatRequest.of(List.of(Message.user("long"), paused.message(), Message.user("go"))),
            false);
    assertThat(Json.write(body.get("messages").get(1)))
        .isEqualTo(
            "{\"role\":\"assistant\",\"content\":[{\"type\":\"compaction\",\"content\":\"Summary.\"}]}");
  }

  @Test
  void stream_assemblesEveryBlockType_andReportsUsageAndEdits() {
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_s\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5-20250929\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":2300,\"cache_creation_input_tokens\":400,\"cache_read_input_tokens\":18000,\"output_tokens\":1}}}",
                "event: ping\ndata: {\"type\":\"ping\"}",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"compaction\"}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"compaction_delta\",\"content\":\"Summary so far.\"}}",
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Two \"}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"zones.\"}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"sig-2\"}}",
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\"Checking \"}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":\"both.\"}}",
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2}",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_time\",\"input\":{}}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"tz\\\": \"}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"UTC\\\"}\"}}",
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":3}",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"get_time\",\"input\":{}}}",
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":4}",
                "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":210},\"context_management\":{\"applied_edits\":[{\"type\":\"clear_tool_uses_20250919\",\"cleared_tool_uses\":2,\"cleared_input_tokens\":900}]}}",
                "event: message_stop\ndata: {\"type\":\"message_stop\"}")));
    RecordingStreamListener listener = new RecordingStreamListener();

    ChatResponse r = client().stream(ChatRequest.of(List.of(Message.user("time?"))), listener);

    assertThat(server.lastRequest().json().get("stream").asBoolean()).isTrue();
    assertThat(listener.log(Kind.TEXT, Kind.REASONING, Kind.TOOL_CALL, Kind.COMPACTING, Kind.USAGE))
        .containsExactly(
            "usage:20700/1",
            "compacting",
            "reasoning:Two ",
            "reasoning:zones.",
            "text:Checking ",
            "text:both.",
            "tool:0:toolu_1:get_time:",
            "tool:0:null:null:{\"tz\": ",
            "tool:0:null:null:\"UTC\"}",
            "tool:1:toolu_2:get_time:",
            "usage:20700/210");
    assertThat(r.text()).isEqualTo("Checking both.");
    assertThat(r.message().reasoning())
        .containsExactly(new ReasoningBlock("thinking", "Two zones.", "sig-2"));
    assertThat(r.message().toolCalls())
        .containsExactly(
            new ToolCall("toolu_1", "get_time", "{\"tz\": \"UTC\"}"),
            new ToolCall("toolu_2", "get_time", "{}"));
    assertThat(r.usage()).isEqualTo(new Usage(2300, 210, 18000, 400, 0));
    assertThat(r.compaction().items())
        .extracting(CompactionItem::content)
        .containsExactly("Summary so far.");
    assertThat(r.compaction().appliedEdits())
        .containsExactly(new AppliedEdit("clear_tool_uses_20250919", 2, 0, 900));
    assertThat(r.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(r.responseId()).isEqualTo("msg_s");
  }

  @Test
  void stream_overloadedErrorAfterOutput_isRetryable_withPartial_andNotRetried() {
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}",
                "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
                "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Half an ans\"}}",
                "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")));
    RetryableModelException e = streamFailure(client(), RetryableModelException.class);
    assertThat(e.errorType()).isEqualTo("overloaded_error");
    assertThat(e.partialMessage().orElseThrow().content()).isEqualTo("Half an ans");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void stream_overloadedBeforeOutput_isRetried_andPromptTooLongIsNot() {
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")));
    server.enqueue(Reply.raw(400, AnthropicErrorMapperTest.PROMPT_TOO_LONG));
    ContextOverflowException e = streamFailure(client(), ContextOverflowException.class);
    assertThat(e.promptTokens()).hasValue(208656);
    assertThat(e.getSuppressed()).hasSize(1);
    assertThat(server.requests()).hasSize(2);
    assertThat(sleeps).hasSize(1);
  }

  @Test
  void exceedContextLimitOverHttp_isOverflowWithCounts() {
    server.enqueue(Reply.raw(400, AnthropicErrorMapperTest.EXCEED_CONTEXT_LIMIT));
    assertThatThrownBy(() -> client().chat(ChatRequest.of(List.of(Message.user("q")))))
        .isInstanceOfSatisfying(
            ContextOverflowException.class,
            e -> {
              assertThat(e.promptTokens()).hasValue(189136);
              assertThat(e.contextWindow()).hasValue(204648);
            });
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void openAiCompactThreshold_andNonObjectToolArguments_areRejected() {
    assertThatThrownBy(
            () ->
                client()
                    .chat(
                        ChatRequest.builder()
                            .messages(List.of(Message.user("q")))
                            .extension(new ResponsesCompaction(100_000))
                            .build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use AnthropicContextManagement");
    assertThatThrownBy(
            () ->
                client()
                    .body(
                        ChatRequest.of(
                            List.of(
                                Message.user("q"),
                                Message.assistant("", List.of(new ToolCall("t", "x", "[1,2"))))),
                        false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tool call t has arguments that are not a JSON object");
    assertThat(server.requests()).isEmpty();
  }
}
