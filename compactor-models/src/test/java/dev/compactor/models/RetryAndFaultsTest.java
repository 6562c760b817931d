package dev.compactor.models;

import static dev.compactor.models.testing.Fixtures.CONTEXT_LENGTH_EXCEEDED;
import static dev.compactor.models.testing.Fixtures.KEY;
import static dev.compactor.models.testing.Fixtures.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.AuthenticationException;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.ContextOverflowException;
import dev.compactor.core.model.NonRetryableModelException;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.StreamListener;
import dev.compactor.core.model.UnknownModelException;
import dev.compactor.models.openai.OpenAiChatCompletionsModel;
import dev.compactor.models.testing.RawServer;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.Reply;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retries, backoff and transport faults, against real sockets on 127.0.0.1. */
class RetryAndFaultsTest {
  private static final String OK =
      "{\"id\":\"c\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
          + "\"assistant\",\"content\":\"fine\"},\"finish_reason\":\"stop\"}],"
          + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}";
  private static final ChatRequest HI = ChatRequest.of(List.of(Message.user("hi")));

  private final List<Duration> sleeps = new ArrayList<>();

  private OpenAiChatCompletionsModel client(String url, RetryPolicy policy) {
    return client(options(url + "/v1", sleeps).retryPolicy(policy));
  }

  private static OpenAiChatCompletionsModel client(ChatModelOptions.Builder options) {
    return new OpenAiChatCompletionsModel(ModelProvider.OPENAI, "gpt-4o", options.build());
  }

  private OpenAiChatCompletionsModel client(String url) {
    return client(url, RetryPolicy.defaults());
  }

  /** One request sent and no wait for a retry. */
  private void assertNotRetried(List<?> requests) {
    assertThat(requests).as("requests sent").hasSize(1);
    assertThat(sleeps).as("retry waits").isEmpty();
  }

  @Test
  void rateLimitStorm_honoursRetryAfter_boundedByMaxAttempts_thenThrowsRetryable() {
    try (FakeModelServer server = FakeModelServer.start()) {
      for (int i = 0; i < 6; i++) {
        server.enqueue(
            Reply.raw(
                    429,
                    "{\"error\":{\"message\":\"Rate limit reached\",\"type\":\"requests\","
                        + "\"code\":\"rate_limit_exceeded\"}}")
                .header("Retry-After", "2"));
      }
      assertThatThrownBy(() -> client(server.url()).chat(HI))
          .isInstanceOfSatisfying(
              RetryableModelException.class,
              e -> {
                assertThat(e.httpStatus()).isEqualTo(429);
                assertThat(e.retryAfter()).contains(Duration.ofSeconds(2));
                assertThat(e.getSuppressed()).hasSize(3);
              });
      assertThat(server.requests()).hasSize(4);
      assertThat(sleeps)
          .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(2));
    }
  }

  @Test
  void retryAfterAsHttpDate_isMeasuredAgainstTheClock() {
    try (FakeModelServer server = FakeModelServer.start()) {
      server.enqueue(
          Reply.raw(429, "{\"error\":{\"message\":\"slow down\"}}")
              .header("Retry-After", "Sun, 01 Mar 2026 10:00:05 GMT"));
      server.enqueue(Reply.raw(200, OK));
      OpenAiChatCompletionsModel model =
          client(
              options(server.url() + "/v1", sleeps)
                  .clock(Clock.fixed(Instant.parse("2026-03-01T10:00:00Z"), ZoneOffset.UTC)));
      assertThat(model.chat(HI).text()).isEqualTo("fine");
      assertThat(sleeps).containsExactly(Duration.ofSeconds(5));
    }
  }

  @Test
  void retryAfterLongerThanTheCap_isNotWaitedFor() {
    try (FakeModelServer server = FakeModelServer.start()) {
      server.enqueue(
          Reply.raw(429, "{\"error\":{\"message\":\"later\"}}").header("Retry-After", "3600"));
      assertThatThrownBy(() -> client(server.url()).chat(HI))
          .isInstanceOfSatisfying(
              RetryableModelException.class,
              e -> assertThat(e.retryAfter()).contains(Duration.ofHours(1)));
      assertNotRetried(server.requests());
    }
  }

  @Test
  void serverErrorThenSuccess_retriesOnceWithJitteredBackoff() {
    try (FakeModelServer server = FakeModelServer.start()) {
      server.enqueue(
          Reply.raw(500, "{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}"));
      server.enqueue(Reply.raw(200, OK));
      ChatResponse r = client(server.url()).chat(HI);
      assertThat(r.text()).isEqualTo("fine");
      assertThat(server.requests()).hasSize(2);
      assertThat(server.requests().get(0).body()).isEqualTo(server.requests().get(1).body());
      assertThat(sleeps).hasSize(1);
      assertThat(sleeps.get(0)).isBetween(Duration.ofMillis(400), Duration.ofMillis(500));
    }
  }

  @Test
  void nonRetryableAuthUnknownModelAndOverflow_areNeverRetried() {
    try (FakeModelServer server = FakeModelServer.start()) {
      server.enqueue(
          Reply.raw(
              401,
              "{\"error\":{\"message\":\"Incorrect API key provided: "
                  + KEY
                  + "\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}"));
      server.enqueue(
          Reply.raw(
              404,
              "{\"error\":{\"message\":\"The model `gpt-9` does not exist\","
                  + "\"code\":\"model_not_found\"}}"));
      server.enqueue(Reply.raw(400, CONTEXT_LENGTH_EXCEEDED));
      server.enqueue(Reply.raw(400, "{\"error\":{\"message\":\"bad temperature\"}}"));
      OpenAiChatCompletionsModel model = client(server.url());

      assertThatThrownBy(() -> model.chat(HI))
          .isInstanceOf(AuthenticationException.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain(KEY))
          .satisfies(e -> assertThat(e.toString()).doesNotContain(KEY))
          .satisfies(
              e -> assertThat(((AuthenticationException) e).bodyExcerpt()).doesNotContain(KEY));
      assertThatThrownBy(() -> model.chat(HI.withModel("gpt-9")))
          .isInstanceOfSatisfying(
              UnknownModelException.class, e -> assertThat(e.model()).isEqualTo("gpt-9"));
      assertThatThrownBy(() -> model.chat(HI)).isInstanceOf(ContextOverflowException.class);
      assertThatThrownBy(() -> model.chat(HI))
          .isExactlyInstanceOf(NonRetryableModelException.class);
      assertThat(server.requests()).hasSize(4);
      assertThat(sleeps).as("no retry waits").isEmpty();
    }
  }

  @Test
  void connectionReset_isRetried_thenSucceeds() {
    try (RawServer server = RawServer.start()) {
      server.enqueue(RawServer.reset());
      server.enqueue(RawServer.response(200, "application/json", OK));
      assertThat(client(server.url()).chat(HI).text()).isEqualTo("fine");
      assertThat(server.requests()).hasSize(2);
      assertThat(sleeps).hasSize(1);
    }
  }

  @Test
  void bodyCutInHalf_isRetryable_andRetried() {
    try (RawServer server = RawServer.start()) {
      server.enqueue(RawServer.cutInHalf(OK));
      server.enqueue(RawServer.response(200, "application/json", OK));
      assertThat(client(server.url()).chat(HI).text()).isEqualTo("fine");
      assertThat(server.requests()).hasSize(2);
    }
    try (RawServer server = RawServer.start()) {
      server.enqueue(RawServer.cutInHalf(OK));
      assertThatThrownBy(() -> client(server.url(), RetryPolicy.none()).chat(HI))
          .isInstanceOfSatisfying(
              RetryableModelException.class, e -> assertThat(e.httpStatus()).isZero());
    }
  }

  @Test
  void malformedJson_isNonRetryable_namingTheProblem() {
    try (RawServer server = RawServer.start()) {
      server.enqueue(RawServer.response(200, "application/json", "{\"id\":\"c\",\"choices\":[{"));
      assertThatThrownBy(() -> client(server.url()).chat(HI))
          .isInstanceOf(NonRetryableModelException.class)
          .hasMessageStartingWith("openai: malformed JSON response");
      assertThat(server.requests()).hasSize(1);
    }
  }

  @Test
  void connectionRefused_isRetryableWithStatusZero() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    assertThatThrownBy(
            () ->
                client("http://127.0.0.1:" + port, RetryPolicy.defaults().withMaxAttempts(2))
                    .chat(HI))
        .isInstanceOfSatisfying(
            RetryableModelException.class,
            e -> {
              assertThat(e.httpStatus()).isZero();
              assertThat(e.getMessage()).startsWith("openai: could not connect");
            });
    assertThat(sleeps).hasSize(1);
  }

  @Test
  void streamResetMidway_keepsTextAndToolCallsSoFar_andIsNotRetried() {
    try (RawServer server = RawServer.start()) {
      server.enqueue(
          RawServer.streamThenDie(
              List.of(
                  "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me \"}}]}",
                  "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"check.\"}}]}",
                  "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{\\\"path\\\":\"}}]}}]}"),
              true));
      List<String> seen = new ArrayList<>();
      assertThatThrownBy(
              () ->
                  client(server.url()).stream(
                      HI,
                      new StreamListener() {
                        @Override
                        public void onText(String d) {
                          seen.add(d);
                        }
                      }))
          .isInstanceOfSatisfying(
              RetryableModelException.class,
              e -> {
                assertThat(e.hasPartialOutput()).isTrue();
                Message partial = e.partialMessage().orElseThrow();
                assertThat(partial.content()).isEqualTo("Let me check.");
                assertThat(partial.toolCalls())
                    .containsExactly(new ToolCall("call_1", "ls", "{\"path\":"));
                assertThat(partial.metadata().provider()).isEqualTo("openai");
              });
      assertThat(seen).containsExactly("Let me ", "check.");
      assertNotRetried(server.requests());
    }
  }

  @Test
  void streamClosedCleanlyBeforeTheEnd_isIncomplete_withPartial() {
    try (RawServer server = RawServer.start()) {
      server.enqueue(
          RawServer.streamThenDie(
              List.of(
                  "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Half\"}}]}"),
              "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"con",
              false));
      assertThatThrownBy(() -> client(server.url()).stream(HI, StreamListener.NONE))
          .isInstanceOfSatisfying(
              RetryableModelException.class,
              e -> {
                assertThat(e.getMessage())
                    .contains("stream ended before the response was complete");
                assertThat(e.partialMessage().orElseThrow().content()).isEqualTo("Half");
              });
    }
  }

  @Test
  void streamThatFailsBeforeAnyOutput_isRetried() {
    try (RawServer server = RawServer.start()) {
      server.enqueue(RawServer.streamThenDie(List.of(": keep-alive"), true));
      server.enqueue(
          RawServer.response(
              200,
              "text/event-stream",
              "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},"
                  + "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"));
      assertThat(client(server.url()).stream(HI, StreamListener.NONE).text()).isEqualTo("ok");
      assertThat(server.requests()).hasSize(2);
      assertThat(sleeps).hasSize(1);
    }
  }

  @Test
  void interruptedWhileWaiting_stopsRetrying_throwsTheFailure_andKeepsTheInterruptFlag() {
    try (FakeModelServer server = FakeModelServer.start()) {
      server.enqueue(Reply.raw(503, "{\"error\":{\"message\":\"busy\"}}"));
      server.enqueue(Reply.raw(200, OK));
      OpenAiChatCompletionsModel model =
          client(
              options(server.url() + "/v1", sleeps)
                  .sleeper(
                      d -> {
                        throw new InterruptedException("stop");
                      }));
      try {
        assertThatThrownBy(() -> model.chat(HI))
            .isInstanceOfSatisfying(
                RetryableModelException.class, e -> assertThat(e.httpStatus()).isEqualTo(503));
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
      }
      assertThat(server.requests()).hasSize(1);
    }
  }
}
