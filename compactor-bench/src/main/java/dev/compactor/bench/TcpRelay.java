package dev.compactor.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;

/**
 * The least any proxy on the path does: a relay on 127.0.0.1 that copies the bytes of each
 * connection to a new connection to the upstream and back, reading nothing of them (no HTTP, no
 * JSON). Through it, the overhead benchmark measures the floor of what a second hop costs on the
 * machine: one more process's worth of socket reads and writes for every byte, on the same CPUs.
 * Two threads a connection, one each way.
 */
final class TcpRelay implements AutoCloseable {
  private final ServerSocket server;
  private final InetSocketAddress upstream;

  /** Starts relaying to the host and port of {@code upstreamUrl}. */
  TcpRelay(String upstreamUrl) throws IOException {
    URI u = URI.create(upstreamUrl);
    upstream = new InetSocketAddress(u.getHost(), u.getPort());
    server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::accept, "relay-accept");
    t.setDaemon(true);
    t.start();
  }

  /** The relay's base URL, standing for the upstream's (same path). */
  String baseUrl(String upstreamUrl) {
    URI u = URI.create(upstreamUrl);
    return "http://127.0.0.1:" + server.getLocalPort() + u.getRawPath();
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      try {
        Socket up = new Socket();
        up.setTcpNoDelay(true);
        client.setTcpNoDelay(true);
        up.connect(upstream, 10_000);
        pump(client, up, "relay-up");
        pump(up, client, "relay-down");
      } catch (IOException e) {
        close(client);
      }
    }
  }

  private static void pump(Socket from, Socket to, String name) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[64 * 1024];
              try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                  out.write(buf, 0, n);
                }
              } catch (IOException e) {
                // one side went away
              } finally {
                close(from);
                close(to);
              }
            },
            name);
    t.setDaemon(true);
    t.start();
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closed already
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
