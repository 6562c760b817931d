package dev.compactor.models;

import static dev.compactor.models.testing.Fixtures.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.core.model.StreamListener;
import dev.compactor.models.openai.OpenAiChatCompletionsModel;
import dev.compactor.models.testing.RawServer;
import dev.compactor.testkit.model.FakeModelServer;
import dev.compactor.testkit.model.Reply;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A call's timeout covers every attempt and every wait between them. */
class CallTimeoutTest {
  private static final ChatRequest HI = ChatRequest.of(List.of(Message.user("hi")));
  private final List<Duration> sleeps = new ArrayList<>();

  private OpenAiChatCompletionsModel client(String url, Duration timeout) {
    return new OpenAiChatCompletionsModel(
        ModelProvider.OPENAI, "gpt-4o", options(url + "/v1", sleeps).timeout(timeout).build());
  }

  /** Reads the request, then says nothing for a minute. */
  private static RawServer.Action stall() {
    return (s, out) -> {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
  }

  @Test
  void aStalledServer_failsTheCallWhenItsTimeoutIsUp_notAfterTheRequestTimeout() {
    try (RawServer server = RawServer.start()) {
      for (int i = 0; i < 5; i++) {
        server.enqueue(stall());
      }
      assertTimeoutPreemptively(
          Duration.ofSeconds(15),
          () ->
              assertThatThrownBy(() -> client(server.url(), Duration.ofSeconds(1)).chat(HI))
                  .isInstanceOf(RetryableModelException.class)
                  .hasMessageContaining("timed out")
                  .hasMessageContaining("the call's timeout is 1 s, retries included"));
    }
  }

  @Test
  void aStalledStream_afterItsHeaders_isCutOffToo() {
    try (RawServer server = RawServer.start()) {
      server.enqueue(
          (s, out) -> {
            out.write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                    .getBytes(StandardCharsets.UTF_8));
            out.flush();
            try {
              Thread.sleep(60_000);
            } catch (InterruptedException e) {
              throw new IOException(e);
            }
          });
      assertTimeoutPreemptively(
          Duration.ofSeconds(15),
          () ->
              assertThatThrownBy(
                      () ->
                          client(server.url(), Duration.ofSeconds(1)).stream(
                              HI, new StreamListener() {}))
                  .isInstanceOf(RetryableModelException.class)
                  .hasMessageContaining("timed out"));
    }
  }

  @Test
  void retries_stopWhenTheNextWaitWouldPassTheTimeout() {
    try (FakeModelServer server = FakeModelServer.start()) {
      for (int i = 0; i < 6; i++) {
        server.enqueue(
            Reply.raw(429, "{\"error\":{\"message\":\"Rate limit reached\"}}")
                .header("Retry-After", "20"));
      }
      assertThatThrownBy(() -> client(server.url(), Duration.ofSeconds(30)).chat(HI))
          .isInstanceOf(RetryableModelException.class)
          .hasMessageContaining("gave up after 2 attempt(s)")
          .hasMessageContaining("timeout of 30 s (retries included)")
          .hasMessageContaining("Rate limit reached");
      assertThat(sleeps).containsExactly(Duration.ofSeconds(20));
      assertThat(server.requests()).hasSize(2);
    }
  }

  @Test
  void theDefaultTimeout_isWellUnderTenMinutes() {
    assertThat(ChatModelOptions.defaults().timeout()).isEqualTo(Duration.ofMinutes(2));
  }
}
