package dev.compactor.server.proxy;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Sends requests to an upstream over HTTP/1.1 (plain or TLS), on the calling thread: the request is
 * written to a socket and the answer read from it, with keep-alive connections kept per origin. No
 * redirects are followed. The answer comes back open (status, headers, the body as a stream), so a
 * streamed answer is relayed as it arrives; a request can also be written while its body still
 * arrives ({@link #open}), and withdrawn before it is whole.
 *
 * <p>Why not the JDK's {@code HttpClient}: it does its input and output on a selector thread and
 * completes every exchange on another, so a call crosses threads several times each way; on a
 * machine of two cores those hand-offs were most of what the proxy added to an answer's first byte,
 * and a good part of its CPU per call. Here the request's own thread writes and reads.
 *
 * <p>What it speaks: a request line with the URI's path and query, {@code Host}, the given headers
 * (already filtered of hop-by-hop ones), {@code Content-Length} when there is a body; an answer
 * framed by {@code Content-Length}, {@code chunked} transfer coding, or the end of the connection;
 * interim 1xx answers skipped. A connection is kept for the next request when the answer is
 * HTTP/1.1, framed, not {@code Connection: close}, and read to its end. A kept connection the
 * upstream has closed meanwhile shows as no answer at all: that request is sent once more on a new
 * connection ({@link Stale}); a request that timed out is never sent again. An upstream that stops
 * taking a request's bytes for the timeout has its connection closed ({@link WriteWatch}), as one
 * that stops answering does. Thread-safe.
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

  /** Idle connections kept per origin, at most. */
  static final int MAX_IDLE_PER_ORIGIN = 64;

  /** How long an idle connection is kept: well under the keep-alive timeouts servers use. */
  static final Duration MAX_IDLE = Duration.ofSeconds(20);

  /** The longest status line or header line read, and the most header lines. */
  private static final int MAX_LINE = 64 * 1024;

  private static final int MAX_HEADERS = 500;

  private final int connectMillis;
  private final int readMillis;
  private final SSLSocketFactory tls;
  private final Map<String, Deque<Connection>> idle = new ConcurrentHashMap<>();

  /**
   * @param connectTimeout how long a connection may take to open
   * @param timeout how long the upstream may stay silent while its answer is awaited or read
   */
  UpstreamClient(Duration connectTimeout, Duration timeout) {
    this(connectTimeout, timeout, (SSLSocketFactory) SSLSocketFactory.getDefault());
  }

  /** As above, with the TLS sockets of {@code tls} (a test's own trust). */
  UpstreamClient(Duration connectTimeout, Duration timeout, SSLSocketFactory tls) {
    this.connectMillis = millis(connectTimeout, "connect timeout");
    this.readMillis = millis(timeout, "timeout");
    this.tls = tls;
  }

  private static int millis(Duration d, String what) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("the upstream " + what + " must be positive, got " + d);
    }
    return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
  }

  /** An open upstream response; {@link #close()} releases the connection. */
  record Answer(int status, Map<String, List<String>> headers, InputStream body)
      implements AutoCloseable {
    boolean ok() {
      return status >= 200 && status < 300;
    }

    boolean eventStream() {
      List<String> types = headers.get("content-type");
      return types != null
          && types.stream()
              .anyMatch(v -> v.toLowerCase(Locale.ROOT).startsWith("text/event-stream"));
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
   * A kept connection the upstream had closed: nothing of an answer came. The request may be sent
   * again on a new connection (it never reached the upstream whole, or was never answered).
   */
  static final class Stale extends IOException {
    private static final long serialVersionUID = 1L;

    Stale(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Sends the request and returns the answer once its head is read.
   *
   * @param headers name → values, already filtered (no hop-by-hop headers)
   * @param body the body, or null for none
   * @throws IOException when the upstream cannot be reached or does not answer in time
   */
  Answer send(String method, URI uri, List<String[]> headers, byte[] body) throws IOException {
    long length = body == null ? -1 : body.length;
    for (int attempt = 0; ; attempt++) {
      try {
        Outgoing o = open(method, uri, headers, length, attempt == 0);
        if (body != null) {
          o.write(body, 0, body.length);
        }
        return o.finish();
      } catch (Stale e) {
        if (attempt > 0) {
          throw e;
        }
      }
    }
  }

  /**
   * Opens a request and writes its head: the caller writes exactly {@code length} bytes of body
   * ({@link Outgoing#write}), then reads the answer ({@link Outgoing#finish}), or withdraws it
   * ({@link Outgoing#abort}).
   *
   * @param length the body's length, or -1 for no body
   */
  Outgoing open(String method, URI uri, List<String[]> headers, long length) throws IOException {
    return open(method, uri, headers, length, true);
  }

  private Outgoing open(
      String method, URI uri, List<String[]> headers, long length, boolean mayReuse)
      throws IOException {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IOException("the upstream URL " + uri + " is not http:// or https://");
    }
    String host = uri.getHost();
    if (host == null) {
      throw new IOException("the upstream URL " + uri + " names no host");
    }
    boolean secure = scheme.equals("https");
    int port = uri.getPort() >= 0 ? uri.getPort() : secure ? 443 : 80;
    String origin = scheme + "://" + host + ":" + port;
    Connection c = mayReuse ? take(origin) : null;
    if (c == null) {
      c = connect(origin, host, port, secure);
    }
    Outgoing o = new Outgoing(c, method, length);
    try {
      o.head(uri, host, port, secure, headers);
    } catch (IOException | RuntimeException e) {
      o.abort();
      throw e;
    }
    return o;
  }

  private Connection take(String origin) {
    Deque<Connection> d = idle.get(origin);
    if (d == null) {
      return null;
    }
    Connection c;
    long now = System.nanoTime();
    while ((c = d.pollFirst()) != null) {
      if (now - c.idleSince < MAX_IDLE.toNanos() && c.usable()) {
        c.reused = true;
        return c;
      }
      c.close();
    }
    return null;
  }

  private void keep(Connection c) {
    Deque<Connection> d = idle.computeIfAbsent(c.origin, o -> new ConcurrentLinkedDeque<>());
    c.idleSince = System.nanoTime();
    if (d.size() >= MAX_IDLE_PER_ORIGIN) {
      c.close();
      return;
    }
    d.offerFirst(c);
    // the least recently used go once they are too old to take: their sockets are closed
    Connection oldest;
    while ((oldest = d.peekLast()) != null
        && c.idleSince - oldest.idleSince >= MAX_IDLE.toNanos()
        && d.removeLastOccurrence(oldest)) {
      oldest.close();
    }
  }

  private Connection connect(String origin, String host, int port, boolean secure)
      throws IOException {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(new InetSocketAddress(unbracketed(host), port), connectMillis);
      s.setSoTimeout(readMillis);
      if (secure) {
        SSLSocket t = (SSLSocket) tls.createSocket(s, host, port, true);
        SSLParameters p = t.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        p.setApplicationProtocols(new String[] {"http/1.1"});
        t.setSSLParameters(p);
        t.startHandshake();
        s = t;
      }
      return new Connection(origin, s, readMillis);
    } catch (IOException | RuntimeException e) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing what did not open
      }
      throw e;
    }
  }

  /** An IPv6 literal as a URI writes it ({@code [::1]}), as an address is looked up. */
  private static String unbracketed(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  /** One connection to an origin. */
  private static final class Connection {
    final String origin;
    final Socket socket;
    final BufferedInputStream in;
    final OutputStream out;
    final int timeoutMillis;
    boolean reused;
    long idleSince;

    /** When the last write of at most {@link WatchedSocket#CHUNK} bytes to the socket began. */
    volatile long writingSince;

    /** Set when {@link WriteWatch} closed the connection because a write did not end in time. */
    volatile boolean writeTimedOut;

    Connection(String origin, Socket socket, int timeoutMillis) throws IOException {
      this.origin = origin;
      this.socket = socket;
      this.timeoutMillis = timeoutMillis;
      this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
      this.out =
          new BufferedOutputStream(new WatchedSocket(socket.getOutputStream(), this), 16 * 1024);
    }

    /** Open, with nothing unread waiting (an idle connection has nothing to say). */
    boolean usable() {
      try {
        return !socket.isClosed() && in.available() == 0;
      } catch (IOException e) {
        return false;
      }
    }

    void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // gone already
      }
    }
  }

  /**
   * The socket's stream, each write watched by {@link WriteWatch} while it lasts: a blocking write
   * has no timeout of its own, so an upstream that stops reading would hold the request's thread.
   */
  private static final class WatchedSocket extends FilterOutputStream {
    private final Connection c;

    WatchedSocket(OutputStream socket, Connection c) {
      super(socket);
      this.c = c;
    }

    /** What one watched write hands the socket at most: the watch sees progress between them. */
    static final int CHUNK = 64 * 1024;

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      c.writingSince = System.nanoTime(); // before the watch can see it: never an old time
      WriteWatch.WRITING.add(c);
      try {
        for (int at = off, end = off + len; at < end; at += CHUNK) {
          c.writingSince = System.nanoTime();
          out.write(b, at, Math.min(CHUNK, end - at));
        }
      } finally {
        WriteWatch.WRITING.remove(c);
      }
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }
  }

  /**
   * Closes the connections whose write has made no progress (no chunk of {@link
   * WatchedSocket#CHUNK} bytes taken) for longer than their timeout: the blocked write then fails,
   * and {@link Outgoing} reports that the upstream took no more of the request in time. One daemon
   * thread for all clients, looking every {@link #TICK_MILLIS} ms at the writes under way.
   */
  static final class WriteWatch {
    static final long TICK_MILLIS = 250;
    private static final Set<Connection> WRITING = ConcurrentHashMap.newKeySet();

    static {
      Thread t = new Thread(WriteWatch::run, "compactor-upstream-write-watch");
      t.setDaemon(true);
      t.start();
    }

    private WriteWatch() {}

    private static void run() {
      while (true) {
        try {
          Thread.sleep(TICK_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
        long now = System.nanoTime();
        for (Connection c : WRITING) {
          if (now - c.writingSince > c.timeoutMillis * 1_000_000L) {
            c.writeTimedOut = true;
            c.close();
          }
        }
      }
    }
  }

  /** A request being written: its head is out, its body goes out as written. */
  final class Outgoing {
    private final Connection c;
    private final String method;
    private final long length;
    private long written;
    private boolean done;

    private Outgoing(Connection c, String method, long length) {
      this.c = c;
      this.method = method;
      this.length = length;
    }

    private void head(URI uri, String host, int port, boolean secure, List<String[]> headers)
        throws IOException {
      StringBuilder h = new StringBuilder(512);
      String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
      h.append(token(method, "method")).append(' ').append(path);
      if (uri.getRawQuery() != null) {
        h.append('?').append(uri.getRawQuery());
      }
      h.append(" HTTP/1.1\r\nHost: ").append(host);
      if (port != (secure ? 443 : 80)) {
        h.append(':').append(port);
      }
      h.append("\r\n");
      for (String[] header : headers) {
        h.append(token(header[0], "header name"))
            .append(": ")
            .append(value(header[0], header[1]))
            .append("\r\n");
      }
      if (length >= 0) {
        h.append("Content-Length: ").append(length).append("\r\n");
      }
      h.append("\r\n");
      write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    private void write(byte[] head) throws IOException {
      try {
        c.out.write(head);
      } catch (IOException e) {
        throw failed(e);
      }
    }

    /** Writes body bytes; at most the length given to {@link #open} in all. */
    void write(byte[] b, int off, int len) throws IOException {
      if (written + len > Math.max(0, length)) {
        throw new IllegalStateException(
            "a body of " + length + " bytes given " + (written + len) + " bytes");
      }
      try {
        c.out.write(b, off, len);
      } catch (IOException e) {
        throw failed(e);
      }
      written += len;
    }

    /** Sends what is written and reads the answer's head. */
    Answer finish() throws IOException {
      if (written != Math.max(0, length)) {
        throw new IllegalStateException(
            "a body of " + length + " bytes finished after " + written + " bytes");
      }
      done = true;
      try {
        c.out.flush();
        return read();
      } catch (IOException e) {
        throw failed(e);
      } catch (RuntimeException e) {
        c.close();
        throw e;
      }
    }

    /** Withdraws the request: the connection is closed before the upstream has it whole. */
    void abort() {
      done = true;
      c.close();
    }

    /**
     * Closes the connection after a failure; one on a kept connection before any of an answer is
     * read is {@link Stale}, unless the upstream was too slow (a timeout is never retried: the
     * upstream may be working on the request).
     */
    private IOException failed(IOException e) {
      c.close();
      if (c.writeTimedOut) {
        return timedOut("took no more of the request's bytes", e);
      }
      if (e instanceof SocketTimeoutException) {
        return timedOut("sent nothing", e);
      }
      if (e instanceof Stale || e instanceof AnswerError || !c.reused) {
        return e;
      }
      return new Stale("a kept connection to " + c.origin + " was closed", e);
    }

    private SocketTimeoutException timedOut(String what, IOException cause) {
      SocketTimeoutException t =
          new SocketTimeoutException(
              "the upstream " + c.origin + " " + what + " for " + c.timeoutMillis + " ms");
      t.initCause(cause);
      return t;
    }

    private Answer read() throws IOException {
      while (true) {
        String status = line(c.in, true);
        if (status == null) {
          throw new EOFException("the upstream " + c.origin + " closed without answering");
        }
        int code = statusCode(status);
        Map<String, List<String>> headers = headers();
        if (code >= 100 && code < 200 && code != 101) {
          continue; // an interim answer (100 Continue, 103 Early Hints)
        }
        boolean http11 = status.startsWith("HTTP/1.1");
        boolean close =
            !http11 || has(headers, "connection", "close") || has(headers, "connection", "upgrade");
        InputStream body;
        if (method.equals("HEAD") || code == 204 || code == 304) {
          body = new Framed(c, 0, false, close);
        } else if (has(headers, "transfer-encoding", "chunked")) {
          body = new Framed(c, -1, false, close);
        } else if (headers.containsKey("content-length")) {
          body = new Framed(c, contentLength(headers), false, close);
        } else {
          body = new Framed(c, -1, true, true); // to the end of the connection
        }
        return new Answer(code, Collections.unmodifiableMap(headers), body);
      }
    }

    private Map<String, List<String>> headers() throws IOException {
      Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
      for (int n = 0; ; n++) {
        String l = line(c.in, false);
        if (l == null) {
          throw new AnswerError("the upstream " + c.origin + " closed within an answer's head");
        }
        if (l.isEmpty()) {
          return headers;
        }
        int colon = l.indexOf(':');
        if (colon <= 0 || n >= MAX_HEADERS) {
          throw new AnswerError("the upstream " + c.origin + " sent a malformed header line");
        }
        headers
            .computeIfAbsent(l.substring(0, colon).trim(), k -> new ArrayList<>(1))
            .add(l.substring(colon + 1).trim());
      }
    }

    private int statusCode(String status) throws AnswerError {
      if (!status.startsWith("HTTP/1.") || status.length() < 12 || status.charAt(8) != ' ') {
        throw new AnswerError(
            "the upstream " + c.origin + " answered with no HTTP/1.x status line");
      }
      try {
        return Integer.parseInt(status.substring(9, 12));
      } catch (NumberFormatException e) {
        throw new AnswerError("the upstream " + c.origin + " sent a status that is no number");
      }
    }

    private long contentLength(Map<String, List<String>> headers) throws AnswerError {
      long n = -1;
      for (String v : headers.get("content-length")) {
        for (String part : v.split(",")) {
          long m;
          try {
            m = Long.parseLong(part.trim());
          } catch (NumberFormatException e) {
            m = -1;
          }
          if (m < 0 || (n >= 0 && m != n)) {
            throw new AnswerError("the upstream " + c.origin + " sent a bad Content-Length");
          }
          n = m;
        }
      }
      return n;
    }
  }

  /** An answer that is not HTTP as this client reads it (never a stale connection). */
  static final class AnswerError extends IOException {
    private static final long serialVersionUID = 1L;

    AnswerError(String message) {
      super(message);
    }
  }

  private static boolean has(Map<String, List<String>> headers, String name, String token) {
    List<String> values = headers.get(name);
    if (values == null) {
      return false;
    }
    for (String v : values) {
      for (String part : v.split(",")) {
        if (part.trim().equalsIgnoreCase(token)) {
          return true;
        }
      }
    }
    return false;
  }

  /** A method or header name: an RFC 9110 token. */
  private static String token(String s, String what) throws IOException {
    if (s.isEmpty()) {
      throw new IOException("an empty " + what + " cannot be sent upstream");
    }
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch <= ' ' || ch >= 0x7f || "\"(),/:;<=>?@[\\]{}".indexOf(ch) >= 0) {
        throw new IOException("the " + what + " \"" + s + "\" cannot be sent upstream");
      }
    }
    return s;
  }

  /** A header value: no line breaks or other control characters but tab. */
  private static String value(String name, String v) throws IOException {
    for (int i = 0; i < v.length(); i++) {
      char ch = v.charAt(i);
      if ((ch < ' ' && ch != '\t') || ch == 0x7f || ch > 0xff) {
        throw new IOException(
            "the value of the header " + name + " has a character that cannot be sent upstream");
      }
    }
    return v;
  }

  /**
   * A line ending in CRLF (or LF), without it; null at the end of the stream before any byte.
   *
   * @param first whether this is an answer's first line: a reset before any byte is then the end
   */
  private static String line(InputStream in, boolean first) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream(64);
    while (true) {
      int ch;
      try {
        ch = in.read();
      } catch (SocketException e) {
        if (first && b.size() == 0) {
          return null; // reset by the upstream before it answered
        }
        throw e;
      }
      if (ch < 0) {
        if (b.size() == 0) {
          return null;
        }
        throw new AnswerError("the upstream ended a line without its end");
      }
      if (ch == '\n') {
        byte[] a = b.toByteArray();
        int n = a.length > 0 && a[a.length - 1] == '\r' ? a.length - 1 : a.length;
        return new String(a, 0, n, StandardCharsets.ISO_8859_1);
      }
      if (b.size() >= MAX_LINE) {
        throw new AnswerError("the upstream sent a line longer than " + MAX_LINE + " bytes");
      }
      b.write(ch);
    }
  }

  /**
   * An answer's body as framed: {@code length} bytes (a {@code Content-Length}), chunks ({@code
   * length} -1), or to the end of the connection ({@code untilClose}). At its end the connection is
   * kept for another request, unless {@code close} or {@code untilClose}.
   */
  private final class Framed extends InputStream {
    private final Connection c;
    private final boolean chunked;
    private final boolean untilClose;
    private final boolean close;
    private long remaining; // of the body (Content-Length) or of the current chunk
    private boolean ended;
    private boolean released;

    Framed(Connection c, long length, boolean untilClose, boolean close) {
      this.c = c;
      this.untilClose = untilClose;
      this.chunked = length < 0 && !untilClose;
      this.remaining = this.chunked ? 0 : length;
      this.close = close;
      if (!this.chunked && !this.untilClose && length == 0) {
        end();
      }
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (ended) {
        return -1;
      }
      if (released) {
        throw new IOException("the answer's body is closed");
      }
      if (len == 0) {
        return 0;
      }
      if (untilClose) {
        int n = c.in.read(b, off, len);
        if (n < 0) {
          end();
        }
        return n;
      }
      if (chunked && remaining == 0 && !nextChunk()) {
        return -1;
      }
      int n = c.in.read(b, off, (int) Math.min(len, remaining));
      if (n < 0) {
        release(false);
        throw new EOFException("the upstream " + c.origin + " ended an answer's body early");
      }
      remaining -= n;
      if (remaining == 0) {
        if (chunked) {
          crlf();
        } else {
          end();
        }
      }
      return n;
    }

    /** Reads the next chunk's size; false (and the body ended) at the last chunk. */
    private boolean nextChunk() throws IOException {
      String size = line(c.in, false);
      if (size == null) {
        release(false);
        throw new EOFException("the upstream " + c.origin + " ended a chunked body early");
      }
      int semi = size.indexOf(';');
      String hex = (semi >= 0 ? size.substring(0, semi) : size).trim();
      long n;
      try {
        n = Long.parseLong(hex, 16);
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 0) {
        release(false);
        throw new AnswerError("the upstream " + c.origin + " sent a bad chunk size");
      }
      if (n == 0) {
        String trailer;
        do {
          trailer = line(c.in, false);
        } while (trailer != null && !trailer.isEmpty());
        if (trailer == null) {
          release(false);
          throw new EOFException("the upstream " + c.origin + " ended a chunked body early");
        }
        end();
        return false;
      }
      remaining = n;
      return true;
    }

    private void crlf() throws IOException {
      String l = line(c.in, false);
      if (l == null || !l.isEmpty()) {
        release(false);
        throw new AnswerError("the upstream " + c.origin + " sent a chunk without its end");
      }
    }

    @Override
    public int available() throws IOException {
      if (ended || released) {
        return 0;
      }
      int a = c.in.available();
      return untilClose ? a : (int) Math.min(a, remaining);
    }

    private void end() {
      ended = true;
      release(!close && !untilClose);
    }

    private void release(boolean reusable) {
      if (released) {
        return;
      }
      released = true;
      if (reusable) {
        keep(c);
      } else {
        c.close();
      }
    }

    @Override
    public void close() {
      if (!ended) {
        release(false); // unread: the connection cannot carry another request
      }
    }
  }
}
