package dev.compactor.models.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.model.ModelError;
import dev.compactor.core.model.ModelException;
import dev.compactor.core.model.ModelTimeoutException;
import dev.compactor.core.model.RetryableModelException;
import dev.compactor.models.ChatModelOptions;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
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
final class HttpTransport {
  /** Longest error body read. */
  private static final int MAX_ERROR_BODY = 64 * 1024;

  private final HttpClient client;
  private final RetryPolicy retry;
  private final Sleeper sleeper;
  private final Random random;
  private final Clock clock;
  private final Duration timeout;
  private final Duration callTimeout;
  private final ErrorMapper mapper;

  /** Cuts off a stalled attempt when the call's time is up. */
  private static final ScheduledExecutorService WATCHDOG =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "compactor-model-call-timeout");
            t.setDaemon(true);
            return t;
          });

  /** The client used when the options name none: HTTP/1.1, no redirects. */
  private static final class Shared {
    static final HttpClient CLIENT =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /**
   * A transport with the options' HTTP client (or a shared one), retry policy, sleeper, randomness
   * and clock; each response is awaited up to {@link ChatModelOptions#requestTimeout()} (for
   * streams: its headers), and a whole call, every attempt and wait included, up to {@link
   * ChatModelOptions#timeout()}.
   */
  HttpTransport(ChatModelOptions options, ErrorMapper mapper) {
    this.client = options.httpClient() != null ? options.httpClient() : Shared.CLIENT;
    this.retry = options.retryPolicy();
    this.sleeper = options.sleeper();
    this.random = options.random();
    this.clock = options.clock();
    this.timeout = options.requestTimeout();
    this.callTimeout = options.timeout();
    this.mapper = mapper;
  }

  public ErrorMapper mapper() {
    return mapper;
  }

  /** POSTs {@code body} and returns the parsed 2xx JSON object. */
  public JsonNode postJson(URI uri, Map<String, String> headers, JsonNode body, String model) {
    byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
    return withRetries(limit -> postOnce(uri, headers, bytes, model, limit), () -> false);
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
        limit -> {
          current.set(sessions.get());
          return streamOnce(uri, headers, bytes, model, current.get(), limit);
        },
        () -> current.get() != null && current.get().delivered());
  }

  private interface Attempt<T> {
    /** One attempt, which must end within {@code limit}. */
    T run(Duration limit);
  }

  private <T> T withRetries(Attempt<T> attempt, BooleanSupplier delivered) {
    List<ModelException> earlier = new ArrayList<>();
    long start = System.nanoTime();
    // Time counted against the call: the real time, with the sleeper's waits counted as asked for
    // (a test sleeper does not really sleep).
    long sleptReal = 0;
    long sleptAsked = 0;
    for (int n = 1; ; n++) {
      long spent = System.nanoTime() - start - sleptReal + sleptAsked;
      Duration left = callTimeout.minusNanos(spent);
      try {
        return attempt.run(left.compareTo(timeout) < 0 ? left : timeout);
      } catch (RetryableModelException e) {
        Optional<Duration> wait =
            delivered.getAsBoolean()
                ? Optional.empty()
                : retry.delayBeforeRetry(n, e.retryAfter().orElse(null), random);
        if (wait.isEmpty()) {
          throw withEarlier(e, earlier);
        }
        spent = System.nanoTime() - start - sleptReal + sleptAsked;
        if (spent + wait.get().toNanos() >= callTimeout.toNanos()) {
          throw withEarlier(outOfTime(e, n), earlier);
        }
        long before = System.nanoTime();
        try {
          sleeper.sleep(wait.get());
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw withEarlier(e, earlier);
        }
        sleptReal += System.nanoTime() - before;
        sleptAsked += wait.get().toNanos();
        earlier.add(e);
      } catch (ModelException e) {
        throw withEarlier(e, earlier);
      }
    }
  }

  /** {@code last}, saying that the call's time ran out before another attempt could finish. */
  private RetryableModelException outOfTime(RetryableModelException last, int attempts) {
    RetryableModelException e =
        new RetryableModelException(
            mapper.provider()
                + ": gave up after "
                + attempts
                + " attempt(s): the call's timeout of "
                + seconds(callTimeout)
                + " (retries included) leaves no time for another; last error: "
                + last.getMessage(),
            last.error(),
            last.retryAfter().orElse(null),
            last.partialMessage().orElse(null),
            last);
    return e;
  }

  private static String seconds(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0
        ? ms / 1000 + " s"
        : String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  private static ModelException withEarlier(ModelException e, List<ModelException> earlier) {
    earlier.forEach(e::addSuppressed);
    return e;
  }

  private JsonNode postOnce(
      URI uri, Map<String, String> headers, byte[] body, String model, Duration limit) {
    if (limit.isZero() || limit.isNegative()) {
      throw timedOut(limit, null);
    }
    HttpResponse<byte[]> resp;
    CompletableFuture<HttpResponse<byte[]>> pending =
        client.sendAsync(
            request(uri, headers, body, "application/json", limit),
            HttpResponse.BodyHandlers.ofByteArray());
    try {
      // The whole response, body included, within the limit (the request timeout covers only
      // the headers).
      resp = pending.get(limit.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      pending.cancel(true);
      throw timedOut(limit, null);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw ioFailure(io, 0, null, limit);
      }
      if (c instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(c);
    } catch (InterruptedException e) {
      pending.cancel(true);
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
      URI uri, Map<String, String> headers, byte[] body, String model, S session, Duration limit) {
    if (limit.isZero() || limit.isNegative()) {
      throw timedOut(limit, null);
    }
    long deadline = System.nanoTime() + limit.toNanos();
    HttpResponse<InputStream> resp;
    try {
      resp =
          client.send(
              request(uri, headers, body, "text/event-stream", limit),
              HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      throw ioFailure(e, 0, null, limit);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted(e);
    }
    int status = resp.statusCode();
    AtomicBoolean cut = new AtomicBoolean();
    InputStream body0 = resp.body();
    ScheduledFuture<?> guard =
        WATCHDOG.schedule(
            () -> {
              cut.set(true);
              try {
                body0.close();
              } catch (IOException ignored) {
                // the reader fails either way
              }
            },
            Math.max(0, deadline - System.nanoTime()),
            TimeUnit.NANOSECONDS);
    try (InputStream in = body0) {
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
        throw cut.get() ? timedOut(limit, session) : ioFailure(e, status, session, limit);
      }
      if (cut.get()) {
        throw timedOut(limit, session);
      }
      session.onEnd();
      return session;
    } catch (IOException closeFailure) {
      // closing the body failed after the outcome was decided; nothing to report
      return session;
    } finally {
      guard.cancel(false);
    }
  }

  private HttpRequest request(
      URI uri, Map<String, String> headers, byte[] body, String accept, Duration limit) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .timeout(limit)
            .header("Content-Type", "application/json")
            .header("Accept", accept)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(b::header);
    return b.build();
  }

  /** The attempt ran out of its time: {@code limit}, the rest of the call's timeout. */
  private RetryableModelException timedOut(Duration limit, StreamSession session) {
    return timedOut(limit, session, null);
  }

  /**
   * The attempt ran out of its time, as the transport saw it or as the HTTP client reported it
   * ({@code cause}): one message either way, naming the call's timeout.
   */
  private RetryableModelException timedOut(Duration limit, StreamSession session, Throwable cause) {
    Duration shown = limit.isNegative() ? Duration.ZERO : limit;
    String msg =
        mapper.provider()
            + ": timed out after "
            + seconds(shown)
            + " (the call's timeout is "
            + seconds(callTimeout)
            + ", retries included)";
    return new ModelTimeoutException(
        mapper.redactor().redact(msg),
        ModelError.of(mapper.provider(), 0),
        session == null ? null : session.partial(),
        cause);
  }

  private RetryableModelException ioFailure(
      IOException e, int status, StreamSession session, Duration limit) {
    if (e instanceof HttpTimeoutException) {
      return timedOut(limit, session, e);
    }
    String what;
    if (e instanceof ConnectException) {
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
