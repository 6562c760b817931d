package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy's HTTP/1.1 client against a server on a raw socket that answers from a script: the
 * request as written, each framing of an answer, keep-alive, a kept connection the server closed,
 * and what it refuses to send or read.
 */
class UpstreamClientTest {
  private final UpstreamClient client =
      new UpstreamClient(Duration.ofSeconds(5), Duration.ofSeconds(5));
  private Script server;

  @AfterEach
  void stop() throws IOException {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theRequestIsWrittenAsGivenWithHostAndLength() throws Exception {
    server = new Script(ok("{}"));
    byte[] body = "{\"model\":\"m\"}".getBytes(StandardCharsets.UTF_8);
    try (UpstreamClient.Answer a =
        client.send(
            "POST",
            server.uri("/v1/chat/completions?x=1"),
            List.of(new String[] {"Authorization", "Bearer k"}, new String[] {"X-A", "1"}),
            body)) {
      assertThat(a.status()).isEqualTo(200);
      assertThat(new String(a.readAll(), StandardCharsets.UTF_8)).isEqualTo("{}");
    }
    String request = server.requests.get(0);
    assertThat(request)
        .isEqualTo(
            "POST /v1/chat/completions?x=1 HTTP/1.1\r\n"
                + "Host: 127.0.0.1:"
                + server.port()
                + "\r\nAuthorization: Bearer k\r\nX-A: 1\r\nContent-Length: 13\r\n\r\n"
                + "{\"model\":\"m\"}");
  }

  @Test
  void eachFramingOfAnAnswerIsReadToItsEnd() throws Exception {
    server =
        new Script(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "8;ext=1\r\ndata: a\n\r\nA\r\n\ndata: bc\n\r\n0\r\nX-Trailer: t\r\n\r\n",
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nhello",
            "HTTP/1.1 204 No Content\r\n\r\n",
            "HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\nto the end");
    URI uri = server.uri("/v1/x");
    try (UpstreamClient.Answer a = client.send("GET", uri, List.of(), null)) {
      assertThat(a.eventStream()).isTrue();
      assertThat(new String(a.readAll(), StandardCharsets.UTF_8))
          .isEqualTo("data: a\n\ndata: bc\n");
    }
    try (UpstreamClient.Answer a = client.send("GET", uri, List.of(), null)) {
      assertThat(a.status()).isEqualTo(201);
      assertThat(a.headers().get("content-length")).containsExactly("5");
      assertThat(new String(a.readAll(), StandardCharsets.UTF_8)).isEqualTo("hello");
    }
    try (UpstreamClient.Answer a = client.send("GET", uri, List.of(), null)) {
      assertThat(a.status()).isEqualTo(204);
      assertThat(a.readAll()).isEmpty();
    }
    try (UpstreamClient.Answer a = client.send("GET", uri, List.of(), null)) {
      assertThat(new String(a.readAll(), StandardCharsets.UTF_8)).isEqualTo("to the end");
    }
    // the framed answers came on one kept connection; the HTTP/1.0 one closed it
    assertThat(server.connections.get()).isEqualTo(1);
  }

  @Test
  void aConnectionIsKeptOnlyWhenTheAnswerWasReadToItsEnd() throws Exception {
    server = new Script(ok("first answer"), ok("second"), ok("third"));
    URI uri = server.uri("/");
    try (UpstreamClient.Answer a = client.send("GET", uri, List.of(), null)) {
      assertThat(a.body().read()).isEqualTo('f'); // closed unread: the connection goes with it
    }
    client.send("GET", uri, List.of(), null).readAll();
    client.send("GET", uri, List.of(), null).readAll();
    assertThat(server.connections.get()).isEqualTo(2);
  }

  @Test
  void aKeptConnectionTheServerClosedIsReplacedAndTheRequestSentOnce() throws Exception {
    server = new Script(ok("one"), Script.CLOSE, ok("two"));
    URI uri = server.uri("/v1/chat/completions");
    byte[] body = "{\"n\":1}".getBytes(StandardCharsets.UTF_8);
    assertThat(client.send("POST", uri, List.of(), body).readAll()).asString().isEqualTo("one");
    // the server closes the kept connection when the next request comes on it
    assertThat(client.send("POST", uri, List.of(), body).readAll()).asString().isEqualTo("two");
    assertThat(server.connections.get()).isEqualTo(2);
    assertThat(server.requests).hasSize(3);
    assertThat(server.requests.get(2)).endsWith("{\"n\":1}");
  }

  @Test
  void aRequestThatTimedOutOnAKeptConnectionIsNotSentAgain() throws Exception {
    UpstreamClient impatient = new UpstreamClient(Duration.ofSeconds(5), Duration.ofMillis(300));
    server = new Script(ok("one"), Script.SILENT, ok("never asked for"));
    URI uri = server.uri("/v1/chat/completions");
    byte[] body = "{\"n\":1}".getBytes(StandardCharsets.UTF_8);
    assertThat(impatient.send("POST", uri, List.of(), body).readAll()).asString().isEqualTo("one");
    // the upstream has the second request whole and works on it: sending it again would do the
    // work twice
    assertThatThrownBy(() -> impatient.send("POST", uri, List.of(), body))
        .isInstanceOf(SocketTimeoutException.class)
        .hasMessage("the upstream http://127.0.0.1:" + server.port() + " sent nothing for 300 ms");
    assertThat(server.requests).hasSize(2);
    assertThat(server.connections.get()).isEqualTo(1);
  }

  @Test
  @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a write may block
  void anUpstreamThatStopsReadingTheBodyTimesOut() throws Exception {
    UpstreamClient impatient = new UpstreamClient(Duration.ofSeconds(5), Duration.ofMillis(300));
    try (Deaf deaf = new Deaf()) {
      URI uri = URI.create("http://127.0.0.1:" + deaf.port() + "/v1/messages");
      byte[] body = new byte[64 << 20]; // far more than the sockets' buffers hold
      assertThatThrownBy(() -> impatient.send("POST", uri, List.of(), body))
          .isInstanceOf(SocketTimeoutException.class)
          .hasMessage(
              "the upstream http://127.0.0.1:"
                  + deaf.port()
                  + " took no more of the request's bytes for 300 ms");
      assertThat(deaf.connections.get()).isEqualTo(1);
    }
  }

  @Test
  void anUpstreamThatReadsSlowlyButSteadilyGetsTheWholeBody() throws Exception {
    UpstreamClient patient = new UpstreamClient(Duration.ofSeconds(5), Duration.ofMillis(1000));
    try (Trickle slow = new Trickle()) {
      URI uri = URI.create("http://127.0.0.1:" + slow.port() + "/v1/messages");
      // far more than the sockets' buffers hold, about three seconds at the upstream's pace: the
      // writes take longer than the timeout, each 64 KB of them far less
      byte[] body = new byte[40 << 20];
      assertThat(patient.send("POST", uri, List.of(), body).readAll()).asString().isEqualTo("ok");
      assertThat(slow.received.poll(5, TimeUnit.SECONDS)).isEqualTo(body.length);
    }
  }

  /** Reads a request's body 256 KB every 20 ms, then answers {@code ok}. */
  private static final class Trickle extends RawSocketServer {
    final BlockingQueue<Integer> received = new LinkedBlockingQueue<>();

    Trickle() throws IOException {
      super("trickle-server");
      start();
    }

    @Override
    void serve(Socket s) {
      try {
        InputStream in = new BufferedInputStream(s.getInputStream(), 1024);
        String head = "";
        while (!head.endsWith("\r\n\r\n")) {
          int b = in.read();
          if (b < 0) {
            return;
          }
          head += (char) b;
        }
        int length = 0;
        for (String l : head.split("\r\n")) {
          if (l.toLowerCase().startsWith("content-length:")) {
            length = Integer.parseInt(l.substring(15).trim());
          }
        }
        int read = 0;
        while (read < length) {
          byte[] part = in.readNBytes(Math.min(256 * 1024, length - read));
          if (part.length == 0) {
            return;
          }
          read += part.length;
          Thread.sleep(20);
        }
        received.add(read);
        OutputStream out = s.getOutputStream();
        out.write(
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.UTF_8));
        out.flush();
      } catch (IOException e) {
        // the client went away
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Accepts connections and never reads from them. */
  private static final class Deaf extends RawSocketServer {
    Deaf() throws IOException {
      super("deaf-server");
      start();
    }

    @Override
    void serve(Socket s) {
      try {
        while (!s.isClosed()) {
          Thread.sleep(50);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void aRequestWithdrawnBeforeItsLastByteNeverReachesTheServerWhole() throws Exception {
    server = new Script(ok("unused"));
    byte[] body = new byte[100_000];
    UpstreamClient.Outgoing o = client.open("POST", server.uri("/"), List.of(), body.length);
    o.write(body, 0, body.length - 1);
    assertThatThrownBy(() -> o.write(body, 0, 2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("a body of 100000 bytes given 100001 bytes");
    assertThatThrownBy(o::finish).hasMessageContaining("finished after 99999 bytes");
    o.abort();
    assertThat(server.incomplete.poll(5, TimeUnit.SECONDS)).isEqualTo(99_999);
    assertThat(server.requests).isEmpty();
  }

  @Test
  void whatCannotBeSentOrReadIsAnErrorThatSaysWhat() throws Exception {
    server =
        new Script(
            "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort" + Script.EOF, "nonsense\r\n\r\n");
    URI uri = server.uri("/");
    assertThatThrownBy(
            () ->
                client.send(
                    "GET", uri, List.<String[]>of(new String[] {"X-Bad", "a\r\nX-Evil: 1"}), null))
        .hasMessageContaining("the value of the header X-Bad has a character that cannot be sent");
    assertThatThrownBy(
            () -> client.send("GET", uri, List.<String[]>of(new String[] {"Bad Name", "v"}), null))
        .hasMessageContaining("the header name \"Bad Name\" cannot be sent upstream");
    assertThatThrownBy(() -> client.send("GET", URI.create("ftp://127.0.0.1/"), List.of(), null))
        .hasMessageContaining("is not http:// or https://");
    try (UpstreamClient.Answer a = client.send("GET", uri, List.of(), null)) {
      assertThatThrownBy(a::readAll).hasMessageContaining("ended an answer's body early");
    }
    assertThatThrownBy(() -> client.send("GET", uri, List.of(), null))
        .hasMessageContaining("answered with no HTTP/1.x status line");
    assertThat(server.requests).noneMatch(r -> r.contains("X-Evil"));
  }

  @Test
  void anHttpsUpstreamIsReachedOverTlsWithItsNameVerified(@TempDir Path dir) throws Exception {
    // a self-signed certificate for 127.0.0.1 only, made with the JDK's keytool
    Path store = dir.resolve("upstream.p12");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                "upstream",
                "-keyalg",
                "EC",
                "-dname",
                "CN=127.0.0.1",
                "-ext",
                "SAN=ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                "changeit")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "changeit".toCharArray());
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext server = SSLContext.getInstance("TLS");
    server.init(kmf.getKeyManagers(), null, null);
    SSLContext trusting = SSLContext.getInstance("TLS");
    trusting.init(null, tmf.getTrustManagers(), null);

    HttpsServer https =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    https.setHttpsConfigurator(new HttpsConfigurator(server));
    https.createContext(
        "/",
        x -> {
          byte[] body = x.getRequestBody().readAllBytes();
          byte[] answer = ("got " + body.length + " bytes").getBytes(StandardCharsets.UTF_8);
          x.sendResponseHeaders(200, answer.length);
          x.getResponseBody().write(answer);
          x.close();
        });
    https.start();
    try {
      int port = https.getAddress().getPort();
      UpstreamClient tls =
          new UpstreamClient(
              Duration.ofSeconds(5), Duration.ofSeconds(5), trusting.getSocketFactory());
      byte[] body = new byte[70_000];
      for (int i = 0; i < 3; i++) {
        try (UpstreamClient.Answer a =
            tls.send("POST", URI.create("https://127.0.0.1:" + port + "/v1/x"), List.of(), body)) {
          assertThat(a.status()).isEqualTo(200);
          assertThat(a.readAll()).asString().isEqualTo("got 70000 bytes");
        }
      }
      // the certificate does not name "localhost": refused
      assertThatThrownBy(
              () -> tls.send("GET", URI.create("https://localhost:" + port + "/"), List.of(), null))
          .isInstanceOf(SSLHandshakeException.class);
      // nor is an unknown certificate trusted by the default client
      assertThatThrownBy(
              () ->
                  client.send(
                      "GET", URI.create("https://127.0.0.1:" + port + "/"), List.of(), null))
          .isInstanceOf(SSLHandshakeException.class);
    } finally {
      https.stop(0);
    }
  }

  private static String ok(String body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length
        + "\r\n\r\n"
        + body;
  }

  /**
   * A server on 127.0.0.1 that reads each request whole (head and Content-Length body) and writes
   * the next scripted answer; {@link #CLOSE} closes the connection instead of answering.
   */
  static final class Script extends RawSocketServer {
    static final String CLOSE = "<close>";

    /** An answer that is never sent: the server reads on until the client closes. */
    static final String SILENT = "<silent>";

    /** At the end of an answer: the connection is closed once it is written. */
    static final String EOF = "<eof>";

    final List<String> requests = new CopyOnWriteArrayList<>();
    final BlockingQueue<Integer> incomplete = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    Script(String... answers) throws IOException {
      super("script-server");
      this.answers.addAll(List.of(answers));
      start();
    }

    URI uri(String path) {
      return URI.create("http://127.0.0.1:" + port() + path);
    }

    @Override
    void serve(Socket s) {
      try {
        InputStream in = new BufferedInputStream(s.getInputStream());
        OutputStream out = s.getOutputStream();
        while (true) {
          ByteArrayOutputStream head = new ByteArrayOutputStream();
          int matched = 0;
          int b;
          while (matched < 4 && (b = in.read()) >= 0) {
            head.write(b);
            matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
          }
          if (matched < 4) {
            return;
          }
          String h = head.toString(StandardCharsets.ISO_8859_1);
          int length = 0;
          List<String> lines = new ArrayList<>(List.of(h.split("\r\n")));
          for (String l : lines) {
            if (l.toLowerCase().startsWith("content-length:")) {
              length = Integer.parseInt(l.substring(15).trim());
            }
          }
          byte[] body = in.readNBytes(length);
          if (body.length < length) {
            incomplete.add(body.length);
            return;
          }
          String answer = answers.take();
          if (answer.equals(CLOSE)) {
            requests.add(h + new String(body, StandardCharsets.UTF_8));
            return;
          }
          if (answer.equals(SILENT)) {
            requests.add(h + new String(body, StandardCharsets.UTF_8));
            while (in.read() >= 0) {
              // until the client gives up
            }
            return;
          }
          requests.add(h + new String(body, StandardCharsets.UTF_8));
          boolean eof = answer.endsWith(EOF);
          if (eof) {
            answer = answer.substring(0, answer.length() - EOF.length());
          }
          out.write(answer.getBytes(StandardCharsets.UTF_8));
          out.flush();
          if (eof || answer.startsWith("HTTP/1.0")) {
            return;
          }
        }
      } catch (IOException e) {
        // the client went away
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
