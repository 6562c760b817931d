package dev.compactor.models.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.model.ChatModel;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.StreamListener;
import dev.compactor.models.ChatModelOptions;
import dev.compactor.models.RetryPolicy;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Test helpers: golden files, options against a local server, recorded sleeps. */
public final class Fixtures {
  private Fixtures() {}

  /** The API key every test client uses; tests check it never leaks. */
  public static final String KEY = "sk-test-SECRETKEY-0123456789abcdef";

  /** A Chat Completions context-overflow error body: 8227 tokens sent, a window of 8192. */
  public static final String CONTEXT_LENGTH_EXCEEDED =
      "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens."
          + " However, your messages resulted in 8227 tokens.\","
          + "\"code\":\"context_length_exceeded\"}}";

  /**
   * Streams a one-message request to {@code model}, asserts that it fails with a {@code type}, and
   * returns that exception for further assertions.
   */
  public static <E extends Throwable> E streamFailure(ChatModel model, Class<E> type) {
    Throwable t =
        catchThrowable(
            () -> model.stream(ChatRequest.of(List.of(Message.user("q"))), StreamListener.NONE));
    assertThat(t).isInstanceOf(type);
    return type.cast(t);
  }

  /** A resource under {@code src/test/resources/golden/} as text. */
  public static String golden(String path) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/golden/" + path)) {
      if (in == null) {
        throw new IllegalArgumentException("no golden file " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Asserts two JSON texts or trees are equal as JSON (field order ignored). */
  public static void assertJsonEquals(JsonNode actual, String expectedGolden) {
    JsonNode expected = Json.tryParse(golden(expectedGolden));
    assertThat(expected).as("golden file %s parses", expectedGolden).isNotNull();
    assertThat(actual)
        .as(
            "request body vs golden %s%nactual:   %s%nexpected: %s",
            expectedGolden, actual, expected)
        .isEqualTo(expected);
  }

  /**
   * Options for a client of {@code baseUrl}: no environment, {@link #KEY}, seeded jitter, sleeps
   * recorded into {@code sleeps} instead of slept.
   */
  public static ChatModelOptions.Builder options(String baseUrl, List<Duration> sleeps) {
    return ChatModelOptions.builder()
        .env(Map.of())
        .apiKey(KEY)
        .baseUrl(baseUrl)
        .random(new Random(42))
        .sleeper(sleeps::add)
        .requestTimeout(Duration.ofSeconds(20))
        .retryPolicy(RetryPolicy.defaults());
  }
}
