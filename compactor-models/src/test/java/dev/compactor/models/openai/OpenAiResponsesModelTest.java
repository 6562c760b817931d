package dev.compactor.models.openai;

import static dev.compactor.models.testing.Fixtures.KEY;
import static dev.compactor.models.testing.Fixtures.assertJsonEquals;
import static dev.compactor.models.testing.Fixtures.golden;
import static dev.compactor.models.testing.Fixtures.options;
import static dev.compactor.models.testing.Fixtures.streamFailure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.StreamListener;
import dev.compactor.models.ModelProvider;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiResponsesModelTest {
  private final FakeModelServer server = FakeModelServer.start();
  private final List<Duration> sleeps = new ArrayList<>();

  @AfterEach
  void stop() {
    server.close();
  }

  private OpenAiResponsesModel client() {
    return new OpenAiResponsesModel(
        ModelProvider.OPENAI, "gpt-5", options(server.url() + "/v1", sleeps).build());
  }

  /** The weather conversation whose final answer carries a compaction item from a response. */
  private static List<Message> weatherWithCompaction() {
    Map<String, Object> raw = new LinkedHashMap<>();
    raw.put("id", "cmp_1");
    raw.put("type", "compaction");
    raw.put("encrypted_content", "gAAAA-opaque");
    return Conversations.weatherWithCompaction(List.of(new CompactionItem("openai", raw)));
  }

  private static ChatRequest weatherRequest() {
    return ChatRequest.builder()
        .messages(weatherWithCompaction())
        .tools(List.of(Conversations.WEATHER, Conversations.TIME))
        .maxOutputTokens(512)
        .temperature(0.2)
        .extension(new ResponsesCompaction(200_000))
        .option("store", false)
        .build();
  }

  @Test
  void chat_sendsGoldenInputItems_withCarriedCompactionAndThreshold() {
    server.enqueue(Reply.raw(200, golden("responses/response-compacted.json")));

    client().chat(weatherRequest());

    RecordedRequest req = server.lastRequest();
    assertThat(req.path()).isEqualTo("/v1/responses");
    assertThat(req.headers()).containsEntry("authorization", "Bearer " + KEY);
    assertJsonEquals(req.json(), "responses/request-weather.json");
  }

  @Test
  void chat_parsesTextToolCallsReasoningCompactionAndUsage() {
    server.enqueue(Reply.raw(200, golden("responses/response-compacted.json")));

    ChatResponse r = client().chat(weatherRequest());

    assertThat(r.text()).isEqualTo("Checking both.");
    assertThat(r.message().toolCalls())
        .containsExactly(
            new ToolCall("call_t1", "get_time", "{\"tz\":\"Europe/Oslo\"}"),
            new ToolCall("call_t2", "get_time", "{\"tz\":\"Europe/Paris\"}"));
    assertThat(r.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(r.rawFinishReason()).isEqualTo("completed");
    assertThat(r.message().reasoning()).hasSize(1);
    assertThat(r.message().reasoning().get(0).text()).isEqualTo("Need the time in two zones.");
    assertThat(r.usage()).isEqualTo(new Usage(804, 300, 4096, 100, 200));
    assertThat(r.usage().totalInput()).isEqualTo(5000);
    assertThat(r.compaction().compacted()).isTrue();
    assertThat(r.compaction().items()).hasSize(1);
    CompactionItem item = r.compaction().items().get(0);
    assertThat(item.id()).isEqualTo("cmp_2");
    assertThat(item.content()).isEqualTo("gAAAA-new-summary");
    assertThat(item.raw()).containsEntry("created_by", "server");
    assertThat(ProviderCompaction.itemsOf(r.message())).containsExactly(item);
    assertThat(r.message().metadata().model()).isEqualTo("gpt-5-2025-08-07");
    assertThat(r.message().metadata().input().model()).isEqualTo("openai/gpt-5");
    assertThat(r.responseId()).isEqualTo("resp_1");
  }

  @Test
  void carriedItem_goesBackUnchanged_beforeTheAnswerItCameWith() {
    server.enqueue(Reply.raw(200, golden("responses/response-compacted.json")));
    server.enqueue(
        Reply.raw(
            200,
            """
            {"id":"resp_2","status":"completed","model":"gpt-5","output":[{"type":"message",
            "role":"assistant","content":[{"type":"output_text","text":"ok"}]}],
            "usage":{"input_tokens":10,"output_tokens":1}}"""));
    OpenAiResponsesModel model = client();
    List<Message> history = new ArrayList<>(List.of(Message.user("hi")));
    ChatResponse first = model.chat(ChatRequest.of(history));
    history.add(first.message());
    history.add(Message.toolResult("call_t1", "10:00"));
    history.add(Message.toolResult("call_t2", "10:00"));
    history.add(Message.user("next"));

    model.chat(ChatRequest.of(history));

    JsonNode input = server.lastRequest().json().get("input");
    assertThat(Json.write(input.get(1)))
        .isEqualTo(
            "{\"id\":\"cmp_2\",\"type\":\"compaction\",\"encrypted_content\":\"gAAAA-new-summary\","
                + "\"created_by\":\"server\"}");
    assertThat(input.get(2).get("content").asText()).isEqualTo("Checking both.");
    assertThat(input.get(3).get("type").asText()).isEqualTo("function_call");
  }

  @Test
  void stream_deliversDeltas_signalsCompacting_andReturnsTheCompletedResponse() {
    String completed =
        "{\"type\":\"response.completed\",\"sequence_number\":20,\"response\":"
            + Json.write(Json.tryParse(golden("responses/response-compacted.json")))
            + "}";
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"model\":\"gpt-5\",\"status\":\"in_progress\"}}",
                "event: response.reasoning_summary_text.delta\ndata: {\"type\":\"response.reasoning_summary_text.delta\",\"item_id\":\"rs_1\",\"output_index\":0,\"delta\":\"Need the time\"}",
                "event: response.compaction.compacting\ndata: {\"type\":\"response.compaction.compacting\",\"item_id\":\"cmp_2\",\"output_index\":1,\"sequence_number\":4}",
                "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":1,\"item\":{\"id\":\"cmp_2\",\"type\":\"compaction\",\"encrypted_content\":\"gAAAA-new-summary\"}}",
                "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":2,\"content_index\":0,\"delta\":\"Checking \"}",
                "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":2,\"content_index\":0,\"delta\":\"both.\"}",
                "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":3,\"item\":{\"id\":\"fc_1\",\"type\":\"function_call\",\"call_id\":\"call_t1\",\"name\":\"get_time\",\"arguments\":\"\"}}",
                "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":3,\"delta\":\"{\\\"tz\\\":\"}",
                "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_1\",\"output_index\":3,\"delta\":\"\\\"Europe/Oslo\\\"}\"}",
                "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":4,\"item\":{\"id\":\"fc_2\",\"type\":\"function_call\",\"call_id\":\"call_t2\",\"name\":\"get_time\",\"arguments\":\"\"}}",
                "event: response.function_call_arguments.delta\ndata: {\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc_2\",\"output_index\":4,\"delta\":\"{\\\"tz\\\":\\\"Europe/Paris\\\"}\"}",
                "event: response.completed\ndata: " + completed)));
    RecordingStreamListener listener = new RecordingStreamListener();

    ChatResponse r = client().stream(weatherRequest(), listener);

    assertThat(server.lastRequest().json().get("stream").asBoolean()).isTrue();
    assertThat(listener.log(Kind.TEXT, Kind.REASONING, Kind.TOOL_CALL, Kind.COMPACTING))
        .containsExactly(
            "reasoning:Need the time",
            "compacting",
            "text:Checking ",
            "text:both.",
            "tool:0:call_t1:get_time:",
            "tool:0:null:null:{\"tz\":",
            "tool:0:null:null:\"Europe/Oslo\"}",
            "tool:1:call_t2:get_time:",
            "tool:1:null:null:{\"tz\":\"Europe/Paris\"}");
    assertThat(r.text()).isEqualTo("Checking both.");
    assertThat(r.message().toolCalls()).hasSize(2);
    assertThat(r.compaction().items()).extracting(CompactionItem::id).containsExactly("cmp_2");
    assertThat(r.usage().cacheRead()).isEqualTo(4096);
  }

  @Test
  void stream_overflowErrorEventAfter200_isContextOverflow_withPartial_andNotRetried() {
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}",
                "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"Par\"}",
                "event: error\ndata: " + OpenAiErrorMapperTest.RESPONSES_OVERFLOW_EVENT)));
    assertThatThrownBy(() -> client().stream(weatherRequest(), StreamListener.NONE))
        .isInstanceOfSatisfying(
            ContextOverflowException.class,
            e -> {
              assertThat(e.httpStatus()).isEqualTo(200);
              assertThat(e.errorCode()).isEqualTo("context_length_exceeded");
              assertThat(e.hasPartialOutput()).isTrue();
              assertThat(e.partialMessage().orElseThrow().content()).isEqualTo("Par");
            });
    assertThat(server.requests()).hasSize(1);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void stream_responseFailedEvent_isMapped() {
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: response.failed\ndata: {\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"context_length_exceeded\",\"message\":\"Your input exceeds the context window of this model.\"}}}")));
    assertThatThrownBy(() -> client().stream(weatherRequest(), StreamListener.NONE))
        .isInstanceOf(ContextOverflowException.class);
  }

  @Test
  void stream_serverErrorEventBeforeAnyOutput_isRetried() {
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"The server had an error\",\"sequence_number\":1}")));
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"ok\"}",
                "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"r2\",\"status\":\"completed\",\"output\":[{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"ok\"}]}],\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}")));

    ChatResponse r =
        client().stream(ChatRequest.of(List.of(Message.user("hi"))), StreamListener.NONE);

    assertThat(r.text()).isEqualTo("ok");
    assertThat(server.requests()).hasSize(2);
    assertThat(sleeps).hasSize(1);
  }

  @Test
  void stream_endingWithoutCompletedEvent_isRetryableWithPartial() {
    server.enqueue(
        Reply.rawStream(
            List.of(
                "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"half\"}")));
    RetryableModelException e = streamFailure(client(), RetryableModelException.class);
    assertThat(e.getMessage()).contains("stream ended before the response was complete");
    assertThat(e.partialMessage().orElseThrow().content()).isEqualTo("half");
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void failedResponseBody_isMappedLikeAnError() {
    server.enqueue(
        Reply.raw(
            200,
            "{\"id\":\"r\",\"status\":\"failed\",\"output\":[],\"error\":{\"code\":"
                + "\"context_length_exceeded\",\"message\":\"Your input exceeds the context window"
                + " of this model.\"}}"));
    assertThatThrownBy(() -> client().chat(ChatRequest.of(List.of(Message.user("hi")))))
        .isInstanceOf(ContextOverflowException.class);
  }

  @Test
  void incompleteResponse_isLength() {
    server.enqueue(
        Reply.raw(
            200,
            """
            {"id":"r","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},
            "output":[{"type":"message","role":"assistant","content":[{"type":"output_text",
            "text":"cut"}]}],"usage":{"input_tokens":3,"output_tokens":16}}"""));
    ChatResponse r = client().chat(ChatRequest.of(List.of(Message.user("hi"))));
    assertThat(r.finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(r.rawFinishReason()).isEqualTo("max_output_tokens");
  }

  @Test
  void compact_postsToResponsesCompact_andReturnsAConversationToContinueFrom() {
    server.enqueue(Reply.raw(200, golden("responses/compact-response.json")));
    server.enqueue(
        Reply.raw(
            200,
            "{\"id\":\"r\",\"status\":\"completed\",\"output\":[],\"usage\":{\"input_tokens\":1,"
                + "\"output_tokens\":1}}"));
    OpenAiResponsesModel model = client();

    CompactedContext c =
        model.compact(
            ChatRequest.builder()
                .messages(Conversations.weather())
                .tools(List.of(Conversations.WEATHER))
                .option("prompt_cache_key", "chat-7")
                .build());

    assertThat(server.lastRequest().path()).isEqualTo("/v1/responses/compact");
    assertJsonEquals(server.lastRequest().json(), "responses/compact-request.json");
    assertThat(c.id()).isEqualTo("resp_cmp_1");
    assertThat(c.messages())
        .extracting(Message::role)
        .containsExactly(Role.USER, Role.USER, Role.ASSISTANT);
    assertThat(c.messages().get(1).content()).isEqualTo("Thanks. Now the time?");
    assertThat(c.items()).extracting(CompactionItem::content).containsExactly("gAAAA-compacted");
    assertThat(c.usage()).isEqualTo(new Usage(900, 120, 0, 0, 80));

    List<Message> next = new ArrayList<>(c.messages());
    next.add(Message.user("And in Rome?"));
    model.chat(ChatRequest.of(next));
    assertThat(Json.write(server.lastRequest().json().get("input")))
        .isEqualTo(
            "[{\"role\":\"user\",\"content\":\"Weather in Oslo and Paris?\"},"
                + "{\"role\":\"user\",\"content\":\"Thanks. Now the time?\"},"
                + "{\"id\":\"cmp_9\",\"type\":\"compaction\",\"encrypted_content\":\"gAAAA-compacted\"},"
                + "{\"role\":\"user\",\"content\":\"And in Rome?\"}]");
  }

  @Test
  void laterSystemMessages_stayInPlace_leadingOnesBecomeInstructions() {
    JsonNode body =
        client()
            .body(
                ChatRequest.of(
                    List.of(
                        Message.system("a"),
                        Message.system("b"),
                        Message.user("u"),
                        Message.system("reminder"))),
                false);
    assertThat(body.get("instructions").asText()).isEqualTo("a\n\nb");
    assertThat(Json.write(body.get("input")))
        .isEqualTo(
            "[{\"role\":\"user\",\"content\":\"u\"},{\"role\":\"system\",\"content\":\"reminder\"}]");
    assertThat(client().api()).isEqualTo(ModelApi.RESPONSES);
  }
}
