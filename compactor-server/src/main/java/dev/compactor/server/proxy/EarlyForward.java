package dev.compactor.server.proxy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * A request body read from the client while it is already being sent upstream, so that the two hops
 * overlap instead of following each other: for a long conversation the client's hundreds of
 * kilobytes reach the provider about when they have reached the proxy.
 *
 * <p>Safe by construction: the upstream gets every byte but the last while the body arrives ({@link
 * UpstreamClient.HeldBody}), and the last only when the proxy, having read and planned the whole
 * request, sends it as it stands ({@link #send}); when the plan sends something else (a compacted
 * or stored view) the early request is withdrawn before it is complete (its connection closed, so
 * the upstream never has a whole request to act on) and the planned body is sent as a request of
 * its own. The client's headers go out with the early request, as they would with the planned one.
 *
 * <p>Used only where it pays: a body of at least {@link #MIN_BYTES} with a {@code Content-Length},
 * and not for the next turn of a conversation whose last request was rewritten (a stored view is
 * sent from then on), as far as {@code worthIt} can tell from the first 4 KB.
 */
final class EarlyForward {
  /** The smallest body sent while it arrives: below it there is little to overlap. */
  static final int MIN_BYTES = 32 * 1024;

  /** Bytes read before {@code worthIt} is asked: the 4 KB {@link ChainMemo} matches on. */
  static final int DECIDE_AT = 4 * 1024;

  /** The body as read, whole. */
  final byte[] raw;

  private final UpstreamClient.HeldBody held; // null: nothing was sent early
  private final CompletableFuture<UpstreamClient.Answer> answer;

  private EarlyForward(
      byte[] raw, UpstreamClient.HeldBody held, CompletableFuture<UpstreamClient.Answer> answer) {
    this.raw = raw;
    this.held = held;
    this.answer = answer;
  }

  /** A body read whole before anything is sent (no early request). */
  static EarlyForward whole(byte[] raw) {
    return new EarlyForward(raw, null, null);
  }

  /**
   * Reads a body of {@code length} bytes from {@code in}, starting the upstream request once {@link
   * #DECIDE_AT} bytes are in when {@code length} is at least {@link #MIN_BYTES} and {@code worthIt}
   * says so of the bytes read.
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
    byte[] raw = new byte[length];
    boolean decided = length < MIN_BYTES;
    UpstreamClient.HeldBody held = null;
    CompletableFuture<UpstreamClient.Answer> answer = null;
    int pos = 0;
    try {
      while (pos < length) {
        int n = in.read(raw, pos, length - pos);
        if (n < 0) {
          break;
        }
        pos += n;
        if (!decided && pos >= DECIDE_AT) {
          decided = true;
          if (worthIt.test(raw)) {
            held = new UpstreamClient.HeldBody(raw);
            answer = client.start("POST", uri, headers, held);
          }
        }
        if (held != null) {
          held.received(pos);
        }
      }
    } catch (IOException | RuntimeException e) {
      if (held != null) {
        held.abort("the client's body could not be read");
      }
      throw e;
    }
    if (pos < length) {
      // the client went away mid-body: nothing of it is sent on
      if (held != null) {
        held.abort("the client's body ended early");
      }
      throw new EOFException(
          "the client's body ended after " + pos + " of its " + length + " bytes");
    }
    return new EarlyForward(raw, held, answer);
  }

  /** Whether an upstream request was started while the body arrived (and not yet withdrawn). */
  boolean started() {
    return held != null;
  }

  /**
   * Sends {@code body} upstream and returns the answer: when it is the very array read ({@link
   * #raw}) and a request was started early, that request's last byte; otherwise the early request
   * (if any) is withdrawn and {@code body} is sent anew.
   */
  UpstreamClient.Answer send(UpstreamClient client, URI uri, List<String[]> headers, byte[] body)
      throws IOException, InterruptedException {
    if (held != null && body == raw) {
      held.release();
      return UpstreamClient.await(answer);
    }
    withdraw("the proxy sends another body");
    return client.send("POST", uri, headers, body);
  }

  /** Withdraws the early request, if any and not yet released. */
  void withdraw(String why) {
    if (held != null && !held.released()) {
      held.abort(why);
    }
  }
}
