package dev.compactor.server.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    for (String[] h : headers) {
      b.header(h[0], h[1]);
    }
    // The wait for the answer's head is timed here, by this thread, rather than with the
    // request's own timeout: the HTTP client keeps those in one timer queue under one lock, which
    // every request in flight takes twice, a point where concurrent requests queue.
    CompletableFuture<HttpResponse<InputStream>> pending =
        http.sendAsync(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    HttpResponse<InputStream> r;
    try {
      r = pending.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      pending.cancel(true);
      throw new HttpTimeoutException("request timed out");
    } catch (InterruptedException e) {
      pending.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(cause == null ? e : cause);
    }
    return new Answer(r.statusCode(), r.headers().map(), r.body());
  }
}
