package dev.compactor.models.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A socket-level server on 127.0.0.1 (port 0) for faults the JDK server cannot produce: resets,
 * bodies cut short, streams that die midway. Each connection reads one request, then runs the next
 * scripted action and closes.
 */
public final class RawServer implements AutoCloseable {
  /** What to do with one connection after its request was read. */
  @FunctionalInterface
  public interface Action {
    void run(Socket socket, OutputStream out) throws IOException;
  }

  private final ServerSocket socket;
  private final ConcurrentLinkedDeque<Action> actions = new ConcurrentLinkedDeque<>();
  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  private final Thread acceptor;

  private RawServer() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::serve, "raw-server-" + socket.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public static RawServer start() {
    try {
      return new RawServer();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public String url() {
    return "http://127.0.0.1:" + socket.getLocalPort();
  }

  public RawServer enqueue(Action a) {
    actions.add(a);
    return this;
  }

  /** Request bodies received, in order. */
  public List<String> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /** Writes {@code raw} (status line, headers, body as given) and closes. */
  public static Action raw(String raw) {
    return (s, out) -> {
      out.write(raw.getBytes(StandardCharsets.UTF_8));
      out.flush();
    };
  }

  /** A complete response with a correct Content-Length. */
  public static Action response(int status, String contentType, String body) {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    return (s, out) -> {
      out.write(
          ("HTTP/1.1 "
                  + status
                  + " X\r\nContent-Type: "
                  + contentType
                  + "\r\nContent-Length: "
                  + b.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.UTF_8));
      out.write(b);
      out.flush();
    };
  }

  /** Headers promising the whole body's length, then only its first half, then close. */
  public static Action cutInHalf(String body) {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    return (s, out) -> {
      out.write(
          ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                  + b.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.UTF_8));
      out.write(b, 0, b.length / 2);
      out.flush();
    };
  }

  /** Closes with a TCP reset before any response byte. */
  public static Action reset() {
    return (s, out) -> {
      s.setSoLinger(true, 0);
      s.close();
    };
  }

  /**
   * Starts a 200 event stream (body delimited by connection close), writes {@code events} (each
   * followed by a blank line), then resets the connection when {@code reset}, else closes it.
   */
  public static Action streamThenDie(List<String> events, boolean reset) {
    return streamThenDie(events, "", reset);
  }

  /** As {@link #streamThenDie(List, boolean)}, writing {@code tail} as is before dying. */
  public static Action streamThenDie(List<String> events, String tail, boolean reset) {
    return (s, out) -> {
      out.write(
          "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
              .getBytes(StandardCharsets.UTF_8));
      for (String e : events) {
        out.write((e + "\n\n").getBytes(StandardCharsets.UTF_8));
      }
      out.write(tail.getBytes(StandardCharsets.UTF_8));
      out.flush();
      if (reset) {
        try {
          Thread.sleep(50); // let the client read what was sent before the reset
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
        }
        s.setSoLinger(true, 0);
        s.close();
      }
    };
  }

  private void serve() {
    while (!socket.isClosed()) {
      try (Socket s = socket.accept()) {
        String body = readRequest(s.getInputStream());
        requests.add(body);
        Action a = actions.poll();
        if (a == null) {
          a = response(500, "application/json", "{\"error\":{\"message\":\"no action\"}}");
        }
        if (!s.isClosed()) {
          a.run(s, s.getOutputStream());
        }
      } catch (IOException e) {
        // the client went away or the server closed; go on or stop
      }
    }
  }

  private static String readRequest(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int last4 = 0;
    while (last4 != 0x0d0a0d0a) {
      int c = in.read();
      if (c < 0) {
        return "";
      }
      head.write(c);
      last4 = (last4 << 8) | c;
    }
    int length = 0;
    for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    return new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
