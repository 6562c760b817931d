package dev.compactor.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.core.tokens.Calibration.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CalibrationTest {

  @Test
  void noSamples_keepsTheBaseRatio() {
    Calibration c = new Calibration(3.0);
    assertThat(c.method()).isEqualTo(Method.NONE);
    assertThat(c.charsPerToken()).isEqualTo(3.0);
    assertThat(c.factor()).isEqualTo(1.0);
  }

  @Test
  void fit_recoversTrueRatioAndConstantOverhead_onGeneratedData() {
    long seed = 99;
    Random rnd = new Random(seed);
    double base = 3.0;
    double trueRatio = 2.5;
    long overhead = 12_000; // a harness's system prompt and tool schemas
    Calibration c = new Calibration(base);
    long chars = 0;
    for (int i = 0; i < 40; i++) {
      chars += 500 + rnd.nextInt(20_000);
      long estimated = (long) Math.ceil(chars / base);
      long reported = overhead + Math.round(chars / trueRatio) + rnd.nextInt(50) - 25;
      c.add(estimated, reported);
    }
    assertThat(c.method()).as("seed %d", seed).isEqualTo(Method.FIT);
    assertThat(c.charsPerToken()).isCloseTo(trueRatio, within(0.02));
    assertThat(c.overheadTokens()).isCloseTo(overhead, within(100.0));
    assertThat(c.counter().name()).isEqualTo("estimate(2.500)");
  }

  @Test
  void fewOrClusteredSamples_useTheRatioOfSums() {
    Calibration c = new Calibration(4.0).add(1000, 1500).add(1010, 1500);
    assertThat(c.method()).isEqualTo(Method.RATIO);
    assertThat(c.factor()).isCloseTo(3000.0 / 2010, within(1e-9));
    assertThat(c.charsPerToken()).isCloseTo(4.0 * 2010 / 3000, within(1e-9));
    assertThat(c.overheadTokens()).isZero();
  }

  @Test
  void ratio_isKeptWithinSaneBounds() {
    assertThat(new Calibration(3.0).add(10, 1_000_000).charsPerToken())
        .isEqualTo(Calibration.MIN_CHARS_PER_TOKEN);
    assertThat(new Calibration(3.0).add(1_000_000, 1).charsPerToken())
        .isEqualTo(Calibration.MAX_CHARS_PER_TOKEN);
  }

  @Test
  void add_rejectsNonPositiveCounts() {
    assertThatThrownBy(() -> new Calibration(3.0).add(0, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("estimated 0");
    assertThatThrownBy(() -> new Calibration(3.0).add(10, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reported -1");
    assertThatThrownBy(() -> new Calibration(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void fromConversation_samplesValidAnchorsOnly() {
    String model = "anthropic/claude-sonnet-4-5";
    double trueRatio = 2.0;
    long overhead = 5_000;
    List<Message> log = new ArrayList<>();
    long chars = 0;
    Random rnd = new Random(5);
    for (int i = 0; i < 30; i++) {
      String q = "word ".repeat(50 + rnd.nextInt(400));
      log.add(Message.user(q));
      chars += q.length();
      long reported = overhead + Math.round(chars / trueRatio);
      Message answer =
          ContextMeterTest.response(log, "ok " + i, new Usage(reported, 10, 0, 0, 0), model);
      log.add(answer);
      chars += answer.content().length();
    }
    // an answer from another model, and one whose prefix no longer matches, are ignored
    log.add(ContextMeterTest.response(log, "x", new Usage(1, 1, 0, 0, 0), "openai/gpt-4o"));
    List<Message> shifted = new ArrayList<>(log.subList(1, log.size()));
    log.add(ContextMeterTest.response(shifted, "y", new Usage(1, 1, 0, 0, 0), model));

    Calibration c = Calibration.fromConversation(log, model, 3.0);
    assertThat(c.samples()).isEqualTo(30);
    assertThat(c.method()).isEqualTo(Method.FIT);
    // per-message overhead of the estimate shifts the ratio slightly; the text dominates
    assertThat(c.charsPerToken()).isCloseTo(trueRatio, within(0.1));
    assertThat(Calibration.fromConversation(log, null, 3.0).samples()).isEqualTo(31);
  }
}
