package dev.compactor.models.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.models.RetryPolicy;
import dev.compactor.models.Sleeper;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * POSTs JSON to a provider with retries, plainly or as a server-sent-event stream.
 *
 * <p>Design: every attempt either returns or throws a {@link ModelException} built by the
 * provider's {@link ErrorMapper} (HTTP errors, in-stream errors) or here (I/O failures → retryable,
 * status 0 when no response arrived). One loop retries {@link RetryableModelException}s per the
 * {@link RetryPolicy}; streamed attempts are retried only while their session has delivered nothing
 * to the caller. Earlier attempts' failures are attached as suppressed exceptions to the one
 * thrown. Thread-safe (immutable; the HttpClient is thread-safe).
 */
public final class HttpTransport {
  /** Longest error body read. */
  private static final int MAX_ERROR_BODY = 64 * 1024;

  private final HttpClient client;
  private final RetryPolicy retry;
  private final Sleeper sleeper;
  private final Random random;
  private final Clock clock;
  private final Duration timeout;
  private final ErrorMapper mapper;

  public HttpTransport(
      HttpClient client,
      RetryPolicy retry,
      Sleeper sleeper,
      Random random,
      Clock clock,
      Duration timeout,
      ErrorMapper mapper) {
    this.client = client;
    this.retry = retry;
    this.sleeper = sleeper;
    this.random = random;
    this.clock = clock;
    this.timeout = timeout;
    this.mapper = mapper;
  }

  public ErrorMapper mapper() {
    return mapper;
  }

  /** POSTs {@code body} and returns the parsed 2xx JSON object. */
  public JsonNode postJson(URI uri, Map<String, String> headers, JsonNode body, String model) {
    byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
    return withRetries(() -> postOnce(uri, headers, bytes, model), () -> false);
  }

  /**
   * POSTs {@code body} expecting {@code text/event-stream} and feeds the events to a fresh session
   * per attempt; returns the session of the attempt that completed.
   */
  public <S extends StreamSession> S postStream(
      URI uri, Map<String, String> headers, JsonNode body, String model, Supplier<S> sessions) {
    byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
    AtomicReference<S> current = new AtomicReference<>();
    return withRetries(
        () -> {
          current.set(sessions.get());
          return streamOnce(uri, headers, bytes, model, current.get());
        },
        () -> current.get() != null && current.get().delivered());
  }

  private interface Attempt<T> {
    T run();
  }

  private <T> T withRetries(Attempt<T> attempt, BooleanSupplier delivered) {
    List<ModelException> earlier = new ArrayList<>();
    for (int n = 1; ; n++) {
      try {
        return attempt.run();
      } catch (RetryableModelException e) {
        Optional<Duration> wait =
            delivered.getAsBoolean()
                ? Optional.empty()
                : retry.delayBeforeRetry(n, e.retryAfter().orElse(null), random);
        if (wait.isEmpty()) {
          throw withEarlier(e, earlier);
        }
        try {
          sleeper.sleep(wait.get());
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw withEarlier(e, earlier);
        }
        earlier.add(e);
      } catch (ModelException e) {
        throw withEarlier(e, earlier);
      }
    }
  }

  private static ModelException withEarlier(ModelException e, List<ModelException> earlier) {
    earlier.forEach(e::addSuppressed);
    return e;
  }

  private JsonNode postOnce(URI uri, Map<String, String> headers, byte[] body, String model) {
    HttpResponse<byte[]> resp;
    try {
      resp =
          client.send(
              request(uri, headers, body, "application/json"),
              HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw ioFailure(e, 0, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted(e);
    }
    String text = new String(resp.body(), StandardCharsets.UTF_8);
    int status = resp.statusCode();
    if (status / 100 != 2) {
      throw mapper.fromHttp(status, text, retryAfter(resp.headers()), model, null);
    }
    JsonNode node;
    try {
      node = Json.parse(text);
    } catch (JsonProcessingException e) {
      throw ErrorClassifier.malformed(mapper, status, "JSON response", text, null, e);
    }
    if (node == null || !node.isObject()) {
      throw ErrorClassifier.malformed(mapper, status, "JSON response", text, null, null);
    }
    return node;
  }

  private <S extends StreamSession> S streamOnce(
      URI uri, Map<String, String> headers, byte[] body, String model, S session) {
    HttpResponse<InputStream> resp;
    try {
      resp =
          client.send(
              request(uri, headers, body, "text/event-stream"),
              HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw ioFailure(e, 0, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted(e);
    }
    int status = resp.statusCode();
    try (InputStream in = resp.body()) {
      if (status / 100 != 2) {
        String text;
        try {
          text = new String(in.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8);
        } catch (IOException e) {
          text = "";
        }
        throw mapper.fromHttp(status, text, retryAfter(resp.headers()), model, null);
      }
      SseReader reader = new SseReader(in);
      try {
        SseEvent event;
        while ((event = reader.next()) != null) {
          if (!session.onEvent(event)) {
            return session;
          }
        }
      } catch (IOException e) {
        throw ioFailure(e, status, session);
      }
      session.onEnd();
      return session;
    } catch (IOException closeFailure) {
      // closing the body failed after the outcome was decided; nothing to report
      return session;
    }
  }

  private HttpRequest request(URI uri, Map<String, String> headers, byte[] body, String accept) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Accept", accept)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(b::header);
    return b.build();
  }

  private RetryableModelException ioFailure(IOException e, int status, StreamSession session) {
    String what;
    if (e instanceof HttpTimeoutException) {
      what = "timed out after " + timeout.toSeconds() + " s";
    } else if (e instanceof ConnectException) {
      what = "could not connect";
    } else if (status != 0) {
      what = "stream broke after HTTP " + status;
    } else {
      what = "connection failed";
    }
    String detail = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    String msg = mapper.redactor().redact(mapper.provider() + ": " + what + " (" + detail + ")");
    return new RetryableModelException(
        msg,
        ModelError.of(mapper.provider(), status),
        null,
        session == null ? null : session.partial(),
        e);
  }

  private ModelException interrupted(InterruptedException e) {
    return new ModelException(
        mapper.provider() + ": interrupted while waiting for the response",
        ModelError.of(mapper.provider(), 0),
        null,
        e);
  }

  /** The wait a response asks for: {@code retry-after-ms}, then {@code retry-after}. */
  Duration retryAfter(HttpHeaders headers) {
    return parseRetryAfter(
        headers.firstValue("retry-after-ms").orElse(null),
        headers.firstValue("retry-after").orElse(null),
        clock);
  }

  /**
   * Parses {@code retry-after-ms} (milliseconds) or {@code retry-after} (seconds, possibly
   * fractional, or an HTTP-date); null when neither is usable. Dates in the past give zero.
   */
  public static Duration parseRetryAfter(String millis, String value, Clock clock) {
    if (millis != null) {
      try {
        double ms = Double.parseDouble(millis.trim());
        if (ms >= 0 && Double.isFinite(ms)) {
          return Duration.ofNanos((long) (ms * 1_000_000));
        }
      } catch (NumberFormatException ignored) {
        // fall through to retry-after
      }
    }
    if (value == null || value.isBlank()) {
      return null;
    }
    String v = value.trim();
    try {
      double s = Double.parseDouble(v);
      return s >= 0 && Double.isFinite(s) ? Duration.ofNanos((long) (s * 1e9)) : null;
    } catch (NumberFormatException notSeconds) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME);
        Duration d = Duration.between(clock.instant(), at.toInstant());
        return d.isNegative() ? Duration.ZERO : d;
      } catch (DateTimeParseException notDate) {
        return null;
      }
    }
  }
}
