package dev.compactor.server.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server on a raw socket on 127.0.0.1 with a thread a connection, for the tests that watch what
 * crosses the wire byte by byte; a subclass serves each connection and calls {@link #start()} at
 * the end of its constructor.
 */
abstract class RawSocketServer implements AutoCloseable {
  final AtomicInteger connections = new AtomicInteger();
  private final ServerSocket socket;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final String name;

  RawSocketServer(String name) throws IOException {
    this.name = name;
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  /** Serves one connection until it ends (the socket is closed afterwards). */
  abstract void serve(Socket s);

  /** Starts accepting connections. */
  final void start() {
    Thread t = new Thread(this::accept, name);
    t.setDaemon(true);
    t.start();
  }

  final int port() {
    return socket.getLocalPort();
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket s = socket.accept();
        connections.incrementAndGet();
        open.add(s);
        Thread t =
            new Thread(
                () -> {
                  try (s) {
                    serve(s);
                  } catch (IOException e) {
                    // closed already
                  }
                },
                name + "-connection");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
