package dev.compactor.models.openai;

import static dev.compactor.models.testing.Fixtures.KEY;
import static dev.compactor.models.testing.Fixtures.assertJsonEquals;
import static dev.compactor.models.testing.Fixtures.golden;
import static dev.compactor.models.testing.Fixtures.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ModelApi;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.model.ToolCallDelta;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.models.AnthropicContextManagement;
import dev.compactor.models.ModelProvider;
import dev.compactor.models.ResponsesCompaction;
import dev.compactor.models.testing.Conversations;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.RecordedRequest;
import dev.compactor.testkit.model.Reply;
import dev.compactor.wire.json.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiChatCompletionsModelTest {
  private final FakeModelServer server = FakeModelServer.start();
  private final List<Duration> sleeps = new ArrayList<>();

  @AfterEach
  void stop() {
    server.close();
  }

  private OpenAiChatCompletionsModel client(ModelProvider provider, String model) {
    return new OpenAiChatCompletionsModel(
        provider, model, options(server.url() + "/v1", sleeps).build());
  }

  private static ChatRequest weatherRequest() {
    return ChatRequest.builder()
        .messages(Conversations.weather())
        .tools(List.of(Conversations.WEATHER, Conversations.TIME))
        .maxOutputTokens(512)
        .temperature(0.2)
        .option("seed", 7)
        .build();
  }

  @Test
  void chat_sendsTheGoldenBody_andParsesParallelToolCallsWithCachedUsage() {
    server.enqueue(Reply.raw(200, golden("chat-completions/response-parallel-tools.json")));
    OpenAiChatCompletionsModel model = client(ModelProvider.OPENAI, "gpt-4o");

    ChatResponse r = model.chat(weatherRequest());

    RecordedRequest req = server.lastRequest();
    assertThat(req.path()).isEqualTo("/v1/chat/completions");
    assertThat(req.headers()).containsEntry("authorization", "Bearer " + KEY);
    assertThat(req.headers().get("content-type")).isEqualTo("application/json");
    assertJsonEquals(req.json(), "chat-completions/request-weather.json");

    assertThat(r.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(r.rawFinishReason()).isEqualTo("tool_calls");
    assertThat(r.message().toolCalls())
        .containsExactly(
            new ToolCall("call_a", "get_time", "{\"tz\":\"Europe/Oslo\"}"),
            new ToolCall("call_b", "get_time", "{\"tz\":\"Europe/Paris\"}"));
    assertThat(r.text()).isEmpty();
    assertThat(r.usage()).isEqualTo(new Usage(176, 40, 1024, 0, 16));
    assertThat(r.usage().totalInput()).isEqualTo(1200);
    assertThat(r.responseId()).isEqualTo("chatcmpl-abc");
    assertThat(r.model()).isEqualTo("gpt-4o-2024-08-06");
    assertThat(r.message().metadata().model()).isEqualTo("gpt-4o-2024-08-06");
    assertThat(r.message().metadata().provider()).isEqualTo("openai");
    assertThat(r.message().metadata().usage()).isEqualTo(r.usage());
    assertThat(model.api()).isEqualTo(ModelApi.CHAT_COMPLETIONS);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void reply_isStampedWithTheInputFingerprint_soItAnchorsTheContextMeter() {
    server.enqueue(
        Reply.raw(
            200,
            """
            {"id":"c","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant",
            "content":"Hi."},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":5000,"completion_tokens":3}}"""));
    List<Message> history = new ArrayList<>(Conversations.weather());
    ChatResponse r = client(ModelProvider.OPENAI, "gpt-4o").chat(ChatRequest.of(history));

    assertThat(r.message().metadata().input().messageCount()).isEqualTo(history.size());
    assertThat(r.message().metadata().input().digest()).isEqualTo(Digests.prefix(history));
    assertThat(r.message().metadata().input().model()).isEqualTo("openai/gpt-4o");
    history.add(r.message());
    var m = ContextMeter.measureOnce(history, "openai/gpt-4o", TokenCounters.estimate());
    assertThat(m.anchored()).as("measurement %s", m).isTrue();
    assertThat(m.tokens()).isGreaterThanOrEqualTo(5000);
  }

  @Test
  void stream_deliversTextAndParallelToolCallDeltas_thenUsage() {
    server.enqueue(
        Reply.rawData(
            "{\"id\":\"c1\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Check\"},\"finish_reason\":null}]}",
            "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ing.\"},\"finish_reason\":null}]}",
            "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}",
            "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"tz\\\":\"}}]},\"finish_reason\":null}]}",
            "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"arguments\":\"{\\\"tz\\\":\\\"UTC\\\"}\"}}]},\"finish_reason\":null}]}",
            "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"CET\\\"}\"}}]},\"finish_reason\":null}]}",
            "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}",
            "{\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,\"prompt_tokens_details\":{\"cached_tokens\":64}}}",
            "[DONE]"));
    List<String> events = new ArrayList<>();
    ChatResponse[] completed = new ChatResponse[1];
    StreamListener listener =
        new StreamListener() {
          @Override
          public void onText(String delta) {
            events.add("text:" + delta);
          }

          @Override
          public void onToolCall(ToolCallDelta d) {
            events.add(
                "tool:" + d.index() + ":" + d.id() + ":" + d.name() + ":" + d.argumentsDelta());
          }

          @Override
          public void onUsage(Usage u) {
            events.add("usage:" + u.totalInput());
          }

          @Override
          public void onComplete(ChatResponse r) {
            completed[0] = r;
          }
        };

    ChatResponse r =
        client(ModelProvider.OPENAI, "gpt-4o").stream(
            ChatRequest.of(Conversations.weather()), listener);

    ObjectNode sent = (ObjectNode) server.lastRequest().json();
    assertThat(sent.get("stream").asBoolean()).isTrue();
    assertThat(sent.get("stream_options").get("include_usage").asBoolean()).isTrue();
    assertThat(server.lastRequest().headers().get("accept")).isEqualTo("text/event-stream");
    assertThat(events)
        .containsExactly(
            "text:Check",
            "text:ing.",
            "tool:0:call_a:get_time:",
            "tool:0:null:null:{\"tz\":",
            "tool:1:call_b:get_time:{\"tz\":\"UTC\"}",
            "tool:0:null:null:\"CET\"}",
            "usage:100");
    assertThat(r.text()).isEqualTo("Checking.");
    assertThat(r.message().toolCalls())
        .containsExactly(
            new ToolCall("call_a", "get_time", "{\"tz\":\"CET\"}"),
            new ToolCall("call_b", "get_time", "{\"tz\":\"UTC\"}"));
    assertThat(r.finishReason()).isEqualTo(FinishReason.TOOL_CALLS);
    assertThat(r.usage()).isEqualTo(new Usage(36, 20, 64, 0, 0));
    assertThat(r.responseId()).isEqualTo("c1");
    assertThat(completed[0]).isSameAs(r);
  }

  @Test
  void stream_errorChunkAfter200_isMapped_withThePartialText() {
    server.enqueue(
        Reply.rawData(
            "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Part\"},\"finish_reason\":null}]}",
            OpenAiErrorMapperTest.CC_OVERFLOW));
    assertThatThrownBy(
            () ->
                client(ModelProvider.OPENAI, "gpt-4").stream(
                    ChatRequest.of(List.of(Message.user("hi"))), StreamListener.NONE))
        .isInstanceOfSatisfying(
            ContextOverflowException.class,
            e -> {
              assertThat(e.httpStatus()).isEqualTo(200);
              assertThat(e.promptTokens()).hasValue(8227);
              assertThat(e.partialMessage().orElseThrow().content()).isEqualTo("Part");
            });
    assertThat(server.requests()).hasSize(1);
  }

  @Test
  void compatibleServers_getMaxTokens_reasoningContentIsRead_andNoKeyIsSent() {
    server.enqueue(
        Reply.raw(
            200,
            """
            {"id":"x","model":"qwen3","choices":[{"index":0,"message":{"role":"assistant",
            "content":"4","reasoning_content":"2+2=4"},"finish_reason":"stop"}],
            "usage":{"prompt_tokens":12,"completion_tokens":5}}"""));
    OpenAiChatCompletionsModel vllm =
        new OpenAiChatCompletionsModel(
            ModelProvider.VLLM,
            "qwen3",
            options(server.url() + "/v1", sleeps).apiKey(null).build());

    ChatResponse r =
        vllm.chat(
            ChatRequest.builder()
                .messages(List.of(Message.user("2+2?")))
                .maxOutputTokens(64)
                .build());

    assertThat(server.lastRequest().json().get("max_tokens").asInt()).isEqualTo(64);
    assertThat(server.lastRequest().json().has("max_completion_tokens")).isFalse();
    assertThat(server.lastRequest().headers()).doesNotContainKey("authorization");
    assertThat(r.text()).isEqualTo("4");
    assertThat(r.message().reasoning()).hasSize(1);
    assertThat(r.message().reasoning().get(0).text()).isEqualTo("2+2=4");
    assertThat(r.message().metadata().provider()).isEqualTo("vllm");
    assertThat(r.message().metadata().input().model()).startsWith("vllm/");
    assertThat(r.finishReason()).isEqualTo(FinishReason.STOP);
  }

  @Test
  void localServerOverflowBodies_overRealHttp_areContextOverflow() {
    for (String body :
        List.of(
            OpenAiErrorMapperTest.LLAMACPP_OVERFLOW,
            OpenAiErrorMapperTest.VLLM_FLAT,
            OpenAiErrorMapperTest.VLLM_NESTED,
            OpenAiErrorMapperTest.OLLAMA_OVERFLOW)) {
      server.enqueue(Reply.raw(400, body));
    }
    OpenAiChatCompletionsModel local = client(ModelProvider.LLAMACPP, "m");
    List<ContextOverflowException> errors = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      try {
        local.chat(ChatRequest.of(List.of(Message.user("long"))));
      } catch (ContextOverflowException e) {
        errors.add(e);
      }
    }
    assertThat(errors).hasSize(4);
    assertThat(errors.get(0).promptTokens()).hasValue(13392);
    assertThat(errors.get(0).contextWindow()).hasValue(8192);
    assertThat(errors.get(1).promptTokens()).hasValue(40000);
    assertThat(errors.get(2).contextWindow()).hasValue(32768);
    assertThat(errors.get(3).promptTokens()).isEmpty();
    assertThat(server.requests()).hasSize(4);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void providerCompactionOptions_andReservedFields_areRejectedBeforeSending() {
    OpenAiChatCompletionsModel model = client(ModelProvider.OPENAI, "gpt-4o");
    List<Message> hi = List.of(Message.user("hi"));
    assertThatThrownBy(
            () ->
                model.chat(
                    ChatRequest.builder()
                        .messages(hi)
                        .extension(new ResponsesCompaction(5000))
                        .build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compactThreshold needs the OpenAI Responses API");
    assertThatThrownBy(
            () ->
                model.chat(
                    ChatRequest.builder()
                        .messages(hi)
                        .extension(
                            AnthropicContextManagement.of(
                                AnthropicContextManagement.Compact.defaults()))
                        .build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                model.chat(
                    ChatRequest.builder().messages(hi).option("messages", List.of()).build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("request option \"messages\"");
    assertThatThrownBy(
            () ->
                model.chat(
                    ChatRequest.builder()
                        .messages(hi)
                        .tools(List.of(new ToolSpec("t", "", "[1]")))
                        .build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tool \"t\": jsonSchema is not a JSON object");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void assistantMessageCarryingOnlyCompactionItems_isNotSentToChatCompletions() {
    Message carrier =
        Message.assistant("").toBuilder()
            .metadata(
                ProviderCompaction.withItems(
                    Message.assistant("").metadata(),
                    List.of(
                        new CompactionItem(
                            "openai", Map.of("type", "compaction", "encrypted_content", "x")))))
            .build();
    ObjectNode body =
        client(ModelProvider.OPENAI, "gpt-4o")
            .body(ChatRequest.of(List.of(carrier, Message.user("go on"))), false);
    assertThat(Json.write(body.get("messages")))
        .isEqualTo("[{\"role\":\"user\",\"content\":\"go on\"}]");
  }
}
