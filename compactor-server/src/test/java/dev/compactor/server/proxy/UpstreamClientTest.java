package dev.compactor.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.Test;

/** The request body publisher: every byte once, in order, as requested, then completion. */
class UpstreamClientTest {
  /** Records what it gets and requests {@code step} more after each slice (from onNext). */
  private static class Recorder implements Flow.Subscriber<ByteBuffer> {
    final ByteArrayOutputStream got = new ByteArrayOutputStream();
    final List<String> signals = new ArrayList<>();
    final long step;
    Flow.Subscription subscription;

    Recorder(long step) {
      this.step = step;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      signals.add("subscribe");
      s.request(step);
    }

    @Override
    public void onNext(ByteBuffer b) {
      byte[] a = new byte[b.remaining()];
      b.get(a);
      got.writeBytes(a);
      signals.add("next");
      subscription.request(step);
    }

    @Override
    public void onError(Throwable t) {
      signals.add("error " + t.getMessage());
    }

    @Override
    public void onComplete() {
      signals.add("complete");
    }
  }

  @Test
  void theBodyIsHandedOutWholeInOrderWhateverTheDemand() {
    byte[] body = new byte[3 * UpstreamClient.BytesPublisher.SLICE + 1234];
    new Random(5).nextBytes(body);
    for (long step : new long[] {1, 2, Long.MAX_VALUE}) {
      UpstreamClient.BytesPublisher p = new UpstreamClient.BytesPublisher(body);
      assertThat(p.contentLength()).isEqualTo(body.length);
      Recorder r = new Recorder(step);
      p.subscribe(r);
      assertThat(r.got.toByteArray()).as("step %d", step).isEqualTo(body);
      assertThat(r.signals)
          .containsExactly("subscribe", "next", "next", "next", "next", "complete");
      // a second subscription (a retry) starts again from the first byte
      Recorder again = new Recorder(step);
      p.subscribe(again);
      assertThat(again.got.toByteArray()).isEqualTo(body);
    }
  }

  @Test
  void nothingIsHandedOutBeforeItIsRequestedOrAfterCancel() {
    byte[] body = new byte[2 * UpstreamClient.BytesPublisher.SLICE];
    Recorder r =
        new Recorder(0) {
          @Override
          public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            signals.add("subscribe");
          }

          @Override
          public void onNext(ByteBuffer b) {
            got.writeBytes(new byte[b.remaining()]);
            signals.add("next");
          }
        };
    new UpstreamClient.BytesPublisher(body).subscribe(r);
    assertThat(r.signals).containsExactly("subscribe");
    r.subscription.request(1);
    assertThat(r.signals).containsExactly("subscribe", "next");
    r.subscription.cancel();
    r.subscription.request(5);
    assertThat(r.signals).containsExactly("subscribe", "next");
    assertThat(r.got.size()).isEqualTo(UpstreamClient.BytesPublisher.SLICE);
  }

  @Test
  void anEmptyBodyCompletesAndANonPositiveRequestIsAnError() {
    Recorder r = new Recorder(1);
    new UpstreamClient.BytesPublisher(new byte[0]).subscribe(r);
    assertThat(r.signals).containsExactly("subscribe", "complete");
    Recorder bad = new Recorder(0);
    new UpstreamClient.BytesPublisher(new byte[10]).subscribe(bad);
    assertThat(bad.signals).hasSize(2);
    assertThat(bad.signals.get(1)).startsWith("error a subscriber requested 0 slices");
  }

  @Test
  void aHeldBodyHandsOutWhatHasArrivedButItsLastByteUntilReleased() {
    byte[] body = new byte[2 * UpstreamClient.BytesPublisher.SLICE + 10];
    new Random(7).nextBytes(body);
    UpstreamClient.HeldBody held = new UpstreamClient.HeldBody(body);
    Recorder r = new Recorder(Long.MAX_VALUE);
    held.subscribe(r);
    assertThat(r.signals).containsExactly("subscribe");
    held.received(1000);
    assertThat(r.got.size()).isEqualTo(1000);
    held.received(body.length); // all there, but the last byte waits for the decision
    assertThat(r.got.size()).isEqualTo(body.length - 1);
    assertThat(r.signals).doesNotContain("complete");
    // a retry's subscription starts again from the first byte, and is held back the same
    Recorder again = new Recorder(1);
    held.subscribe(again);
    assertThat(again.got.size()).isEqualTo(body.length - 1);
    held.release();
    assertThat(r.got.toByteArray()).isEqualTo(body);
    assertThat(r.signals.get(r.signals.size() - 1)).isEqualTo("complete");
    assertThat(again.got.toByteArray()).isEqualTo(body);
    assertThat(again.signals.get(again.signals.size() - 1)).isEqualTo("complete");
    held.abort("too late"); // released: nothing changes
    assertThat(r.signals).noneMatch(x -> x.startsWith("error"));
  }

  @Test
  void anAbortedHeldBodyEndsInAnErrorAndNeverItsLastByte() {
    byte[] body = new byte[5000];
    UpstreamClient.HeldBody held = new UpstreamClient.HeldBody(body);
    Recorder r = new Recorder(Long.MAX_VALUE);
    held.subscribe(r);
    held.received(body.length);
    held.abort("the proxy sends another body");
    assertThat(r.got.size()).isEqualTo(body.length - 1);
    assertThat(r.signals)
        .containsExactly("subscribe", "next", "error the proxy sends another body");
    assertThatThrownBy(held::release).isInstanceOf(IllegalStateException.class);
    assertThat(r.signals).hasSize(3);
    assertThatThrownBy(() -> new UpstreamClient.HeldBody(body).release())
        .hasMessage("released after 0 of 5000 bytes");
  }
}
