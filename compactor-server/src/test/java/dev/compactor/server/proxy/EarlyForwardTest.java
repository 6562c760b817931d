package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.chat.ChatTaskService;
import dev.compactor.chat.store.ChatStore;
import dev.compactor.chat.store.SqliteChatStore;
import dev.compactor.server.CompactorServer;
import dev.compactor.server.ServerMetrics;
import dev.compactor.server.ServerSettings;
import dev.compactor.server.Tenants;
import dev.compactor.server.Upstream;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long body is sent upstream while it still arrives from the client, and the upstream never has a
 * whole request the proxy did not decide to send: watched on the wire, from a client and an
 * upstream on raw sockets around a real server.
 */
class EarlyForwardTest {
  @TempDir Path dir;

  private WireUpstream upstream;
  private ProxyStore proxyStore;
  private ChatStore chats;
  private CompactorServer server;

  @BeforeEach
  void start() throws IOException {
    upstream = new WireUpstream();
    proxyStore = ProxyStore.openSqlite(dir.resolve("proxy.db"));
    chats = SqliteChatStore.open(dir.resolve("chats.db"));
    server =
        CompactorServer.start(
            ServerSettings.builder()
                .port(0)
                .upstream(new Upstream("openai", upstream.baseUrl(), null, null))
                .build(),
            ChatTaskService.builder(chats).build(),
            Tenants.localMode(),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new ServerMetrics(),
            proxyStore,
            Map.of());
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
    proxyStore.close();
    chats.close();
    upstream.close();
  }

  @Test
  void aLongBodyReachesTheUpstreamWhileTheClientIsStillSendingIt() throws Exception {
    byte[] body = bytes(longChat("gpt-4.1", 120_000));
    int first = body.length - 20_000;
    try (Socket client = connect()) {
      OutputStream out = begin(client, body, first);
      // the upstream is sent the bytes before the client has sent the rest
      await(() -> upstream.seen.size() == 1 && upstream.seen.get(0).received() >= 60_000);
      Seen early = upstream.seen.get(0);
      assertThat(early.whole).isFalse();
      assertThat(early.head).startsWith("POST /v1/chat/completions ");
      out.write(body, first, body.length - first);
      out.flush();
      Response r = Response.read(client.getInputStream());
      assertThat(r.status).as(r.body).isEqualTo(200);
      assertThat(r.header("x-compactor-action")).isEqualTo("none");
      assertThat(r.body).contains("\"done\"");
    }
    assertThat(upstream.seen).hasSize(1);
    assertThat(upstream.seen.get(0).whole).isTrue();
    assertThat(upstream.seen.get(0).body.toByteArray()).isEqualTo(body);
    assertThat(upstream.seen.get(0).header("authorization")).isEqualTo("Bearer sk-client-own");
  }

  @Test
  void aBodyTheProxyCompactsIsWithdrawnBeforeItIsWholeAndItsNextTurnIsNotSentEarly()
      throws Exception {
    ObjectNode chat = toolLoop("gpt-4o", 30);
    byte[] body = bytes(chat);
    assertThat(body.length).isGreaterThan(EarlyForward.MIN_BYTES);
    Response r = post(body, "X-Compactor-Budget", "6000");
    assertThat(r.status).as(r.body).isEqualTo(200);
    assertThat(r.header("x-compactor-action")).isNotEqualTo("none");
    // the request begun while the body arrived ends without its last byte; the compacted one is
    // the only whole request the upstream gets
    await(() -> upstream.seen.size() == 2 && upstream.seen.get(0).ended);
    Seen withdrawn = upstream.seen.get(0);
    assertThat(withdrawn.whole).isFalse();
    assertThat(withdrawn.received()).isLessThan(body.length);
    Seen sent = upstream.seen.get(1);
    assertThat(sent.whole).isTrue();
    assertThat(sent.body.size()).isLessThan(body.length);

    // the next turn continues a conversation sent as a stored view: read whole, then sent once
    ArrayNode messages = chat.withArray("messages");
    messages.addObject().put("role", "assistant").put("content", "done");
    messages.addObject().put("role", "user").put("content", "And now the tests, please.");
    Response next = post(bytes(chat), "X-Compactor-Budget", "6000");
    assertThat(next.status).as(next.body).isEqualTo(200);
    assertThat(next.header("x-compactor-conversation"))
        .isEqualTo(r.header("x-compactor-conversation"));
    assertThat(upstream.seen).hasSize(3);
    assertThat(upstream.seen.get(2).whole).isTrue();
  }

  @Test
  void aClientThatStopsMidBodyLeavesTheUpstreamNothingWhole() throws Exception {
    byte[] body = bytes(longChat("gpt-4.1", 120_000));
    try (Socket client = connect()) {
      begin(client, body, 70_000);
      await(() -> upstream.seen.size() == 1 && upstream.seen.get(0).received() >= 20_000);
      client.shutdownOutput();
      await(() -> upstream.seen.get(0).ended);
    }
    assertThat(upstream.seen).hasSize(1);
    assertThat(upstream.seen.get(0).whole).isFalse();
  }

  @Test
  void aShortBodyIsReadWholeBeforeAnythingIsSent() throws Exception {
    byte[] body = bytes(longChat("gpt-4.1", 10_000));
    assertThat(body.length).isLessThan(EarlyForward.MIN_BYTES);
    try (Socket client = connect()) {
      OutputStream out = client.getOutputStream();
      out.write(head(body.length));
      out.write(body, 0, body.length - 10);
      out.flush();
      Thread.sleep(300);
      assertThat(upstream.seen).isEmpty();
      out.write(body, body.length - 10, 10);
      out.flush();
      assertThat(Response.read(client.getInputStream()).status).isEqualTo(200);
    }
    assertThat(upstream.seen).hasSize(1);
    assertThat(upstream.seen.get(0).body.toByteArray()).isEqualTo(body);
  }

  // ------------------------------------------------------------------ bodies

  private static ObjectNode longChat(String model, int chars) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; text.length() < chars; i++) {
      text.append("Line ").append(i).append(" of the notes we keep on the build.\n");
    }
    return ProxyContract.chat(
        model, "system", "You are a careful engineer.", "user", text.toString());
  }

  /** A tool loop of {@code calls} bash calls with long outputs, ending with a user message. */
  private static ObjectNode toolLoop(String model, int calls) {
    ObjectNode body = ProxyContract.chat(model, "system", "You run commands.", "user", "Fix it.");
    for (int i = 0; i < calls; i++) {
      ProxyContract.addBashCall(body, "call_" + i);
      ProxyContract.addToolResult(
          body, "call_" + i, ("output line " + i + " of a long file\n").repeat(60));
    }
    body.withArray("messages").addObject().put("role", "user").put("content", "Go on.");
    return body;
  }

  private static byte[] bytes(ObjectNode node) {
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  // ------------------------------------------------------------------ the client

  private Socket connect() throws IOException {
    URI u = URI.create(server.baseUrl());
    Socket s = new Socket(InetAddress.getLoopbackAddress(), u.getPort());
    s.setSoTimeout(30_000);
    return s;
  }

  /** Writes a request's head (with a budget it stays under) and the first bytes of its body. */
  private static OutputStream begin(Socket client, byte[] body, int bytes) throws IOException {
    OutputStream out = client.getOutputStream();
    out.write(head(body.length, "X-Compactor-Budget", "400000"));
    out.write(body, 0, bytes);
    out.flush();
    return out;
  }

  private static byte[] head(int length, String... headers) {
    StringBuilder h = new StringBuilder();
    h.append("POST /v1/chat/completions HTTP/1.1\r\n")
        .append("Host: 127.0.0.1\r\n")
        .append("Content-Type: application/json\r\n")
        .append("Authorization: Bearer sk-client-own\r\n")
        .append("Connection: close\r\n")
        .append("Content-Length: ")
        .append(length)
        .append("\r\n");
    for (int i = 0; i < headers.length; i += 2) {
      h.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
    }
    return h.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
  }

  private Response post(byte[] body, String... headers) throws IOException {
    try (Socket client = connect()) {
      OutputStream out = client.getOutputStream();
      out.write(head(body.length, headers));
      out.write(body);
      out.flush();
      return Response.read(client.getInputStream());
    }
  }

  /** A response read to the end of its connection (the client asks to close it). */
  private record Response(int status, List<String> headers, String body) {
    static Response read(InputStream in) throws IOException {
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int end = all.indexOf("\r\n\r\n");
      List<String> lines = List.of(all.substring(0, end).split("\r\n"));
      int status = Integer.parseInt(lines.get(0).split(" ")[1]);
      return new Response(status, lines.subList(1, lines.size()), all.substring(end + 4));
    }

    String header(String name) {
      return WireUpstream.header(headers, name);
    }
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 20 s for the upstream").isLessThan(until);
      Thread.sleep(10);
    }
  }

  // ------------------------------------------------------------------ the upstream

  /** What the upstream saw of one request: its head and its body's bytes as they came. */
  static final class Seen {
    final String head;
    final int length;
    final ByteArrayOutputStream body = new ByteArrayOutputStream();
    volatile boolean whole; // every byte of its Content-Length came
    volatile boolean ended; // its connection ended before that

    Seen(String head, int length) {
      this.head = head;
      this.length = length;
    }

    synchronized int received() {
      return body.size();
    }

    synchronized void add(byte[] b, int n) {
      body.write(b, 0, n);
    }

    String header(String name) {
      List<String> lines = List.of(head.split("\r\n"));
      return WireUpstream.header(lines.subList(1, lines.size()), name);
    }
  }

  /**
   * An OpenAI-compatible upstream on a raw socket (HTTP/1.1, keep-alive): records each request as
   * its bytes arrive, and answers a whole one with a fixed chat completion.
   */
  static final class WireUpstream extends RawSocketServer {
    static final String ANSWER =
        "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o\","
            + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"done\"},"
            + "\"finish_reason\":\"stop\"}],"
            + "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":1,\"total_tokens\":11}}";

    final List<Seen> seen = new CopyOnWriteArrayList<>();

    WireUpstream() throws IOException {
      super("wire-upstream");
      start();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + port() + "/v1";
    }

    static String header(List<String> lines, String name) {
      for (String l : lines) {
        int colon = l.indexOf(':');
        if (colon > 0 && l.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return l.substring(colon + 1).trim();
        }
      }
      return null;
    }

    @Override
    void serve(Socket s) {
      Seen r = null;
      try {
        InputStream in = new BufferedInputStream(s.getInputStream());
        OutputStream out = s.getOutputStream();
        while (true) {
          String head = readHead(in);
          if (head == null) {
            return;
          }
          List<String> lines = new ArrayList<>(Arrays.asList(head.split("\r\n")));
          String cl = header(lines.subList(1, lines.size()), "content-length");
          r = new Seen(head, cl == null ? 0 : Integer.parseInt(cl));
          seen.add(r);
          byte[] buf = new byte[8192];
          while (r.received() < r.length) {
            int n = in.read(buf, 0, Math.min(buf.length, r.length - r.received()));
            if (n < 0) {
              r.ended = true;
              return;
            }
            r.add(buf, n);
          }
          r.whole = true;
          byte[] answer = ANSWER.getBytes(StandardCharsets.UTF_8);
          out.write(
              ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                      + answer.length
                      + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
          out.write(answer);
          out.flush();
        }
      } catch (IOException e) {
        if (r != null && !r.whole) {
          r.ended = true; // reset by the peer
        }
      }
    }

    /** The request line and headers, or null at the end of the connection. */
    private static String readHead(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int matched = 0;
      int b;
      while ((b = in.read()) >= 0) {
        head.write(b);
        matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        if (matched == 4) {
          String h = head.toString(StandardCharsets.US_ASCII);
          return h.substring(0, h.length() - 4);
        }
      }
      return null;
    }
  }
}
