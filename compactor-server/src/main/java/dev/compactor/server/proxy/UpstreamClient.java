package dev.compactor.server.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sends one request to an upstream with the JDK's HTTP client (HTTP/1.1, no redirects followed) and
 * hands back the open response: status, headers and the body as a stream, so a streamed answer can
 * be relayed as it arrives. Thread-safe.
 */
final class UpstreamClient {
  /** Headers that belong to one connection (RFC 9110 §7.6.1) or that the client sets itself. */
  static final Set<String> HOP_BY_HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-connection",
          "proxy-authenticate",
          "proxy-authorization",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "host",
          "content-length",
          "expect",
          "http2-settings");

  private final HttpClient http;
  private final Duration timeout;

  UpstreamClient(Duration connectTimeout, Duration timeout) {
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(connectTimeout)
            .build();
    this.timeout = timeout;
  }

  /** An open upstream response; {@link #close()} releases the connection. */
  record Answer(int status, Map<String, List<String>> headers, InputStream body)
      implements AutoCloseable {
    boolean ok() {
      return status >= 200 && status < 300;
    }

    boolean eventStream() {
      return headers.entrySet().stream()
          .anyMatch(
              e ->
                  e.getKey().equalsIgnoreCase("content-type")
                      && e.getValue().stream()
                          .anyMatch(
                              v -> v.toLowerCase(Locale.ROOT).startsWith("text/event-stream")));
    }

    byte[] readAll() throws IOException {
      try (InputStream in = body) {
        return in.readAllBytes();
      }
    }

    @Override
    public void close() {
      try {
        body.close();
      } catch (IOException e) {
        // the connection is gone already
      }
    }
  }

  /**
   * Sends the request.
   *
   * @param headers name → values, already filtered (no hop-by-hop headers)
   * @param body the body, or null for none
   * @throws IOException when the upstream cannot be reached or does not answer in time
   */
  Answer send(String method, URI uri, List<String[]> headers, byte[] body)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .method(
                method,
                body == null ? HttpRequest.BodyPublishers.noBody() : new BytesPublisher(body));
    for (String[] h : headers) {
      b.header(h[0], h[1]);
    }
    // send, not sendAsync with a wait here: sendAsync hands every answer on to CompletableFuture's
    // default pool, which on a machine of one or two cores (a common pool of parallelism 1) starts
    // a new thread for each task; that cost a streamed answer's first byte about 0.5 ms per call.
    // The timeout covers the wait for the answer's head, as before.
    HttpResponse<InputStream> r =
        http.send(b.timeout(timeout).build(), HttpResponse.BodyHandlers.ofInputStream());
    return new Answer(r.statusCode(), r.headers().map(), r.body());
  }

  /**
   * A request body sent from the array as it is, in slices of it: the JDK's {@code
   * BodyPublishers.ofByteArray} copies the whole body into new 16 KB buffers first, for a long
   * conversation hundreds of kilobytes per request. The array must not change while it is sent.
   */
  static final class BytesPublisher implements HttpRequest.BodyPublisher {
    /** Bytes per slice handed to the client. */
    static final int SLICE = 64 * 1024;

    private final byte[] body;

    BytesPublisher(byte[] body) {
      this.body = Objects.requireNonNull(body, "body");
    }

    @Override
    public long contentLength() {
      return body.length;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
      subscriber.onSubscribe(new Slices(body, subscriber));
    }

    /** One subscription: the slices from the first, as many as requested, then completion. */
    private static final class Slices implements Flow.Subscription {
      private final byte[] body;
      private final Flow.Subscriber<? super ByteBuffer> subscriber;
      private final AtomicLong demand = new AtomicLong();
      private final AtomicInteger draining = new AtomicInteger();
      private volatile boolean done;
      private int next; // the offset of the next slice; only the draining thread touches it

      Slices(byte[] body, Flow.Subscriber<? super ByteBuffer> subscriber) {
        this.body = body;
        this.subscriber = subscriber;
      }

      @Override
      public void request(long n) {
        if (done) {
          return;
        }
        if (n <= 0) {
          done = true;
          subscriber.onError(
              new IllegalArgumentException("a subscriber requested " + n + " slices (§3.9)"));
          return;
        }
        demand.getAndAccumulate(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
        drain();
      }

      /**
       * Hands out what is requested; a request made meanwhile (from onNext) loops here once more.
       */
      private void drain() {
        if (draining.getAndIncrement() != 0) {
          return;
        }
        do {
          while (!done && next < body.length && demand.get() > 0) {
            int len = Math.min(SLICE, body.length - next);
            ByteBuffer slice = ByteBuffer.wrap(body, next, len).slice();
            next += len;
            demand.decrementAndGet();
            subscriber.onNext(slice);
          }
          if (!done && next >= body.length) {
            done = true;
            subscriber.onComplete();
          }
        } while (draining.decrementAndGet() != 0);
      }

      @Override
      public void cancel() {
        done = true;
      }
    }
  }
}
