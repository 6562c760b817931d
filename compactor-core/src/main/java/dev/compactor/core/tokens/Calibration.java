package dev.compactor.core.tokens;

import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.PrefixDigester;
import java.util.List;
import java.util.Locale;

/**
 * Corrects the chars-per-token ratio of an estimate with provider-reported usage.
 *
 * <p>Each sample pairs what the estimate (with the base ratio) said a request's input was with what
 * the provider reported for it. Provider input includes overhead the stored messages do not show
 * (the harness's system prompt, tool schemas), which is about constant within a conversation, so
 * with at least {@value #MIN_FIT_SAMPLES} samples spread over at least a fifth of the largest
 * estimate the calibration fits {@code reported = overhead + factor × estimated} by least squares
 * ({@link Method#FIT}); otherwise it takes {@code factor = Σ reported / Σ estimated} ({@link
 * Method#RATIO}, which attributes the overhead to the text and so errs high). The corrected ratio
 * is {@code base / factor}, kept within [{@value #MIN_CHARS_PER_TOKEN}, {@value
 * #MAX_CHARS_PER_TOKEN}].
 *
 * <p>Not thread-safe; it is an accumulator. Example:
 *
 * <pre>{@code
 * Calibration c = Calibration.fromConversation(messages, "anthropic/claude-sonnet-4-5",
 *     TokenCounters.DEFAULT_CHARS_PER_TOKEN);
 * TokenCounter counter = c.counter(); // estimate with the corrected ratio
 * }</pre>
 */
public final class Calibration {
  /** How the factor was obtained. */
  public enum Method {
    /** No samples: factor 1, the base ratio unchanged. */
    NONE,
    /** Ratio of sums. */
    RATIO,
    /** Least-squares line with an intercept (the provider's constant overhead). */
    FIT
  }

  public static final int MIN_FIT_SAMPLES = 3;
  public static final double MIN_CHARS_PER_TOKEN = 0.5;
  public static final double MAX_CHARS_PER_TOKEN = 12.0;

  private final double baseCharsPerToken;
  private int n;
  private double sx;
  private double sy;
  private double sxx;
  private double sxy;
  private long minX = Long.MAX_VALUE;
  private long maxX = Long.MIN_VALUE;

  /**
   * @param baseCharsPerToken the ratio the estimated sides of the samples were computed with
   * @throws IllegalArgumentException when it is not finite and &gt; 0
   */
  public Calibration(double baseCharsPerToken) {
    if (!Double.isFinite(baseCharsPerToken) || baseCharsPerToken <= 0) {
      throw new IllegalArgumentException(
          "base chars per token must be a finite number > 0, got " + baseCharsPerToken);
    }
    this.baseCharsPerToken = baseCharsPerToken;
  }

  /**
   * Collects samples from a conversation's own usage anchors: every assistant message that is not
   * uiOnly, has usage and an input fingerprint whose message count and prefix digest match the
   * stored messages before it (and whose model matches {@code model}, unless that is null) yields
   * (estimate of the messages before it + reply priming, its reported total input). O(history): the
   * prefix digests are computed incrementally in one pass.
   *
   * @param messages the stored messages
   * @param model only responses of this model count; null takes every model
   * @param baseCharsPerToken the ratio to estimate with
   */
  public static Calibration fromConversation(
      List<Message> messages, String model, double baseCharsPerToken) {
    Calibration c = new Calibration(baseCharsPerToken);
    TokenCounter estimate = TokenCounters.estimate(baseCharsPerToken);
    PrefixDigester running = new PrefixDigester();
    long estimated = 0;
    boolean any = false;
    int i = 0;
    for (Message m : messages) {
      if (ContextMeter.isCandidate(m)) {
        InputFingerprint in = m.metadata().input();
        long reported = m.metadata().usage().totalInput();
        if (in.messageCount() == i
            && (model == null || ContextMeter.sameModel(ContextMeter.stampedModel(m), model))
            && reported > 0
            && any
            && running.digest().equals(in.digest())) {
          c.add(estimated + estimate.overhead().replyPriming(), reported);
        }
      }
      running.add(m);
      if (!m.uiOnly()) {
        estimated += estimate.countMessage(m);
        any = true;
      }
      i++;
    }
    return c;
  }

  /**
   * Adds a sample.
   *
   * @param estimatedTokens the estimate (at the base ratio) of a request's input, &gt; 0
   * @param reportedTokens the provider's count of that input, &gt; 0
   * @return this
   * @throws IllegalArgumentException when either count is not &gt; 0
   */
  public Calibration add(long estimatedTokens, long reportedTokens) {
    if (estimatedTokens <= 0 || reportedTokens <= 0) {
      throw new IllegalArgumentException(
          "calibration samples need positive counts, got estimated "
              + estimatedTokens
              + " and reported "
              + reportedTokens);
    }
    n++;
    sx += estimatedTokens;
    sy += reportedTokens;
    sxx += (double) estimatedTokens * estimatedTokens;
    sxy += (double) estimatedTokens * reportedTokens;
    minX = Math.min(minX, estimatedTokens);
    maxX = Math.max(maxX, estimatedTokens);
    return this;
  }

  public int samples() {
    return n;
  }

  public double baseCharsPerToken() {
    return baseCharsPerToken;
  }

  public Method method() {
    if (n == 0) {
      return Method.NONE;
    }
    if (n >= MIN_FIT_SAMPLES && maxX - minX >= 0.2 * maxX && slope() > 0) {
      return Method.FIT;
    }
    return Method.RATIO;
  }

  /** Reported tokens per estimated token. */
  public double factor() {
    return switch (method()) {
      case NONE -> 1.0;
      case RATIO -> sy / sx;
      case FIT -> slope();
    };
  }

  /** The fitted constant overhead in tokens ({@link Method#FIT} only; 0 otherwise). */
  public double overheadTokens() {
    if (method() != Method.FIT) {
      return 0;
    }
    return (sy - slope() * sx) / n;
  }

  /** The corrected chars-per-token ratio. */
  public double charsPerToken() {
    double r = baseCharsPerToken / factor();
    return Math.max(MIN_CHARS_PER_TOKEN, Math.min(MAX_CHARS_PER_TOKEN, r));
  }

  /** An estimating counter with the corrected ratio. */
  public TokenCounter counter() {
    return TokenCounters.estimate(charsPerToken());
  }

  private double slope() {
    double den = n * sxx - sx * sx;
    return den <= 0 ? 0 : (n * sxy - sx * sy) / den;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "Calibration[%s, %d samples, factor %.3f, overhead %.0f, %.3f -> %.3f chars/token]",
        method(),
        n,
        factor(),
        overheadTokens(),
        baseCharsPerToken,
        charsPerToken());
  }
}
