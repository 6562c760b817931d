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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

  /** Runs the sends of requests {@link #start started} before their body is whole. */
  private final ExecutorService senders =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "compactor-proxy-upstream-" + SENDERS.incrementAndGet());
            t.setDaemon(true);
            return t;
          });

  private static final AtomicInteger SENDERS = new AtomicInteger();

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
    return send(method, uri, headers, body == null ? null : new BytesPublisher(body));
  }

  private Answer send(String method, URI uri, List<String[]> headers, BytesPublisher body)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(uri)
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : body);
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
   * Starts sending a request whose body is still arriving ({@link HeldBody}): the upstream gets the
   * head and the bytes as they come, all but the last, which it gets only on {@link
   * HeldBody#release()}; so it cannot act on the request before the proxy has decided to send it as
   * it stands. {@link HeldBody#abort} withdraws it: the connection is closed before the body is
   * complete, and an answer that came anyway is closed unread. The send runs on a thread of this
   * client's own (a blocking {@code send}; see above why not {@code sendAsync}).
   */
  CompletableFuture<Answer> start(String method, URI uri, List<String[]> headers, HeldBody body) {
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    senders.execute(
        () -> {
          try {
            answer.complete(send(method, uri, headers, body));
          } catch (IOException | InterruptedException | RuntimeException e) {
            answer.completeExceptionally(e);
          }
        });
    body.whenAborted(() -> answer.thenAccept(Answer::close));
    return answer;
  }

  /**
   * The answer of a request {@link #start started} and released: its upstream's answer, or the
   * exception {@link #send} would have thrown.
   */
  static Answer await(CompletableFuture<Answer> answer) throws IOException, InterruptedException {
    try {
      return answer.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof InterruptedException ie) {
        throw ie;
      }
      if (cause instanceof RuntimeException re) {
        throw re;
      }
      throw new IOException(cause);
    }
  }

  /**
   * A request body sent from the array as it is, in slices of it: the JDK's {@code
   * BodyPublishers.ofByteArray} copies the whole body into new 16 KB buffers first, for a long
   * conversation hundreds of kilobytes per request. The array must not change while it is sent.
   */
  static class BytesPublisher implements HttpRequest.BodyPublisher {
    /** Bytes per slice handed to the client. */
    static final int SLICE = 64 * 1024;

    final byte[] body;

    BytesPublisher(byte[] body) {
      this.body = Objects.requireNonNull(body, "body");
    }

    @Override
    public long contentLength() {
      return body.length;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
      Slices s = new Slices(this, subscriber);
      subscribed(s);
      subscriber.onSubscribe(s);
    }

    /** Bytes that may be handed out now, from the first. */
    int limit() {
      return body.length;
    }

    /** Why the body is withdrawn, or null. */
    IOException failure() {
      return null;
    }

    /** A new subscription (the client subscribes again for a retry). */
    void subscribed(Slices s) {}
  }

  /**
   * A body read into its array while it is sent: {@link #received} says how much of the array is
   * filled; all of it but the last byte may go out before {@link #release()}, so that the upstream
   * holds an incomplete request until the proxy has decided; {@link #abort} withdraws it (the
   * client fails the request and closes its connection). Each subscription starts from the first
   * byte, as for {@link BytesPublisher}.
   */
  static final class HeldBody extends BytesPublisher {
    private final List<Slices> subscriptions = new CopyOnWriteArrayList<>();
    private final List<Runnable> onAbort = new CopyOnWriteArrayList<>();
    private volatile int received;
    private volatile boolean released;
    private volatile IOException failure;

    /** The array the body is being read into, of the body's whole length (at least one byte). */
    HeldBody(byte[] body) {
      super(body);
      if (body.length == 0) {
        throw new IllegalArgumentException("a held body has at least one byte");
      }
    }

    /** The array is filled up to {@code n} bytes. */
    void received(int n) {
      if (n < received || n > body.length) {
        throw new IllegalArgumentException(
            "received " + n + " of " + body.length + " bytes after " + received);
      }
      received = n;
      drainAll();
    }

    /** The body is whole and goes out as it stands: its last byte is handed out now. */
    void release() {
      if (failure != null) {
        throw new IllegalStateException("released after it was withdrawn: " + failure.getMessage());
      }
      if (received != body.length) {
        throw new IllegalStateException(
            "released after " + received + " of " + body.length + " bytes");
      }
      released = true;
      drainAll();
    }

    /** Withdraws the request, saying why: the upstream never gets its last byte. */
    void abort(String why) {
      if (released || failure != null) {
        return;
      }
      failure = new IOException(why);
      drainAll();
      onAbort.forEach(Runnable::run);
    }

    boolean released() {
      return released;
    }

    private void whenAborted(Runnable r) {
      onAbort.add(r);
      if (failure != null) {
        r.run();
      }
    }

    @Override
    int limit() {
      return released ? body.length : Math.min(received, body.length - 1);
    }

    @Override
    IOException failure() {
      return failure;
    }

    @Override
    void subscribed(Slices s) {
      subscriptions.add(s);
    }

    private void drainAll() {
      for (Slices s : subscriptions) {
        s.drain();
      }
    }
  }

  /**
   * One subscription: the slices from the first, as many as requested and as far as the publisher's
   * {@link BytesPublisher#limit}, then completion (or the publisher's failure).
   */
  private static final class Slices implements Flow.Subscription {
    private final BytesPublisher publisher;
    private final Flow.Subscriber<? super ByteBuffer> subscriber;
    private final AtomicLong demand = new AtomicLong();
    private final AtomicInteger draining = new AtomicInteger();
    private volatile boolean done;
    private int next; // the offset of the next slice; only the draining thread touches it

    Slices(BytesPublisher publisher, Flow.Subscriber<? super ByteBuffer> subscriber) {
      this.publisher = publisher;
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
     * Hands out what is requested and may go; a request or more bytes meanwhile (from onNext, or
     * from the thread reading the body) loops here once more.
     */
    void drain() {
      if (draining.getAndIncrement() != 0) {
        return;
      }
      byte[] body = publisher.body;
      do {
        IOException failure = publisher.failure();
        if (!done && failure != null) {
          done = true;
          subscriber.onError(failure);
        }
        int limit = publisher.limit();
        while (!done && next < limit && demand.get() > 0) {
          int len = Math.min(BytesPublisher.SLICE, limit - next);
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
