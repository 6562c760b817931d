package dev.compactor.models.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A provider stand-in on 127.0.0.1 (port 0) that answers with scripted replies, in order, and
 * records every request it received.
 */
public final class StubServer implements AutoCloseable {
  /**
   * A request as received.
   *
   * @param headers lower-cased names, first value
   */
  public record Recorded(String method, String path, Map<String, String> headers, String body) {
    public JsonNode json() {
      return Json.tryParse(body);
    }
  }

  /** A scripted reply: a JSON body or an event stream. */
  public static final class Reply {
    final int status;
    final String body;
    final List<String> events;
    final Map<String, String> headers = new LinkedHashMap<>();

    private Reply(int status, String body, List<String> events) {
      this.status = status;
      this.body = body;
      this.events = events;
    }

    public static Reply json(int status, String body) {
      return new Reply(status, body, null).header("Content-Type", "application/json");
    }

    /** An event stream; each element is one event's lines, e.g. {@code "data: {...}"}. */
    public static Reply sse(List<String> events) {
      return new Reply(200, null, events).header("Content-Type", "text/event-stream");
    }

    /** An event stream of {@code data:} events. */
    public static Reply sseData(String... jsons) {
      List<String> events = new ArrayList<>();
      for (String j : jsons) {
        events.add("data: " + j);
      }
      return sse(events);
    }

    public Reply header(String name, String value) {
      headers.put(name, value);
      return this;
    }
  }

  private final HttpServer server;
  private final ConcurrentLinkedDeque<Reply> replies = new ConcurrentLinkedDeque<>();
  private final List<Recorded> requests = Collections.synchronizedList(new ArrayList<>());

  private StubServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", this::handle);
    server.start();
  }

  public static StubServer start() {
    try {
      return new StubServer();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code http://127.0.0.1:port}. */
  public String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  public StubServer enqueue(Reply reply) {
    replies.add(reply);
    return this;
  }

  public List<Recorded> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  public Recorded lastRequest() {
    List<Recorded> all = requests();
    return all.get(all.size() - 1);
  }

  private void handle(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    Map<String, String> headers = new LinkedHashMap<>();
    ex.getRequestHeaders()
        .forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v.isEmpty() ? "" : v.get(0)));
    requests.add(new Recorded(ex.getRequestMethod(), ex.getRequestURI().getPath(), headers, body));
    Reply r = replies.poll();
    if (r == null) {
      r = Reply.json(500, "{\"error\":{\"message\":\"no reply scripted\"}}");
    }
    r.headers.forEach((k, v) -> ex.getResponseHeaders().add(k, v));
    try (OutputStream out = ex.getResponseBody()) {
      if (r.events == null) {
        byte[] bytes = r.body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(r.status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
          out.write(bytes);
        }
      } else {
        ex.sendResponseHeaders(r.status, 0);
        for (String e : r.events) {
          out.write((e + "\n\n").getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
