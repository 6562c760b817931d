package dev.compactor.server.proxy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.function.Predicate;

/**
 * A request body read from the client while it is already being written upstream, so that the two
 * hops overlap instead of following each other: for a long conversation the client's hundreds of
 * kilobytes reach the provider about when they have reached the proxy.
 *
 * <p>Safe by construction: the upstream is written every byte but the last while the body arrives,
 * and the last only when the proxy, having read and planned the whole request, sends it as it
 * stands ({@link #send}); until then the upstream has no whole request to act on. When the plan
 * sends something else (a compacted or stored view), the early request is withdrawn, its connection
 * closed before the body is whole, and the planned body is sent as a request of its own. The
 * client's headers go out with the early request, as they would with the planned one. A failure of
 * the early request (the upstream closed it, a kept connection gone stale) only withdraws it: the
 * body is then sent once planned, as without it.
 *
 * <p>Used only where it pays: a body of at least {@link #MIN_BYTES} with a {@code Content-Length},
 * and not for the next turn of a conversation whose last request was rewritten (a stored view is
 * sent from then on), as far as {@code worthIt} can tell from the first 4 KB. Not thread-safe: the
 * request's own thread reads, writes and sends.
 */
final class EarlyForward {
  /** The smallest body sent while it arrives: below it there is little to overlap. */
  static final int MIN_BYTES = 32 * 1024;

  /** Bytes read before {@code worthIt} is asked: the 4 KB {@link ChainMemo} matches on. */
  static final int DECIDE_AT = 4 * 1024;

  /** The body as read, whole. */
  final byte[] raw;

  private UpstreamClient.Outgoing early; // null: nothing sent early, or withdrawn
  private int written; // bytes of raw written to early

  private EarlyForward(byte[] raw) {
    this.raw = raw;
  }

  /** A body read whole before anything is sent (no early request). */
  static EarlyForward whole(byte[] raw) {
    return new EarlyForward(raw);
  }

  /**
   * Reads a body of {@code length} bytes from {@code in}, opening the upstream request once {@link
   * #DECIDE_AT} bytes are in when {@code length} is at least {@link #MIN_BYTES} and {@code worthIt}
   * says so of the bytes read, and writing it all but its last byte as it arrives.
   *
   * @throws IOException when the client's body cannot be read or ends before {@code length} bytes
   *     (the early request is withdrawn)
   */
  static EarlyForward read(
      InputStream in,
      int length,
      Predicate<byte[]> worthIt,
      UpstreamClient client,
      URI uri,
      List<String[]> headers)
      throws IOException {
    EarlyForward f = new EarlyForward(new byte[length]);
    boolean decided = length < MIN_BYTES;
    int pos = 0;
    try {
      while (pos < length) {
        int n = in.read(f.raw, pos, length - pos);
        if (n < 0) {
          throw new EOFException(
              "the client's body ended after " + pos + " of its " + length + " bytes");
        }
        pos += n;
        if (!decided && pos >= DECIDE_AT) {
          decided = true;
          if (worthIt.test(f.raw)) {
            f.open(client, uri, headers);
          }
        }
        f.writeUpTo(Math.min(pos, length - 1));
      }
    } catch (IOException | RuntimeException e) {
      f.withdraw(); // the client went away mid-body: nothing of it is sent on
      throw e;
    }
    return f;
  }

  private void open(UpstreamClient client, URI uri, List<String[]> headers) {
    try {
      early = client.open("POST", uri, headers, raw.length);
    } catch (IOException e) {
      early = null; // sent once planned instead
    }
  }

  private void writeUpTo(int end) {
    if (early == null || end <= written) {
      return;
    }
    try {
      early.write(raw, written, end - written);
      written = end;
    } catch (IOException e) {
      withdraw(); // sent once planned instead
    }
  }

  /**
   * Sends {@code body} upstream and returns the answer: when it is the very array read ({@link
   * #raw}) and a request was started early, that request's last byte; otherwise the early request
   * (if any) is withdrawn and {@code body} is sent anew.
   */
  UpstreamClient.Answer send(UpstreamClient client, URI uri, List<String[]> headers, byte[] body)
      throws IOException {
    if (early != null && body == raw) {
      writeUpTo(raw.length); // on failure, withdrawn: sent anew below
      if (early != null) {
        UpstreamClient.Outgoing o = early;
        early = null;
        try {
          return o.finish();
        } catch (UpstreamClient.Stale e) {
          // a kept connection the upstream had closed: sent again on a new one, below
        }
      }
    }
    withdraw();
    return client.send("POST", uri, headers, body);
  }

  /** Withdraws the early request, if any and not yet sent whole. */
  void withdraw() {
    if (early != null) {
      early.abort();
      early = null;
    }
  }
}
