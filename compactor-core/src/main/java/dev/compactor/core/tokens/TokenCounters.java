package dev.compactor.core.tokens;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.Locale;

/**
 * Factory of {@link TokenCounter}s. The BPE counters and the default estimate are shared singletons
 * (thread-safe; their caches serve every caller).
 *
 * <pre>{@code
 * TokenCounter gpt = TokenCounters.forModel("openai/gpt-4o");      // o200k_base, exact
 * TokenCounter claude = TokenCounters.forModel("claude-sonnet-4-5"); // estimate, 3.0 chars/token
 * TokenCounter tuned = TokenCounters.estimate(calibration.charsPerToken());
 * }</pre>
 */
public final class TokenCounters {
  /**
   * Default chars-per-token ratio of estimates: 3.0. OpenAI's rule of thumb for English prose is
   * about 4; Claude's tokenizer yields more tokens for the same text, and code, JSON and tool
   * output tokenize denser still (Claude Code transcripts calibrate to about 2.4–2.7, see {@code
   * docs/token-counting.md}). 3.0 errs towards counting more, so budgets fire early rather than
   * late, until a usage anchor or a {@link Calibration} corrects it.
   */
  public static final double DEFAULT_CHARS_PER_TOKEN = 3.0;

  /** Entries of the LRU (keyed by counter name + content hash) shared by the BPE counters. */
  public static final int SHARED_CACHE_CAPACITY = 100_000;

  /**
   * System property that turns the shared content-hash cache off when it is {@code false}, for a
   * process that counts each message once (a one-shot command): there no lookup can hit, and in a
   * fresh JVM hashing a message costs about as much as tokenizing it. The {@code compactor}
   * launcher sets it for its short commands. Counts are the same either way.
   */
  static final String SHARED_CACHE_PROPERTY = "compactor.tokens.sharedCache";

  static final TokenCountCache SHARED_CACHE =
      new TokenCountCache(
          "false".equalsIgnoreCase(System.getProperty(SHARED_CACHE_PROPERTY, "").trim())
              ? 0
              : SHARED_CACHE_CAPACITY);

  private TokenCounters() {}

  /**
   * The counter for a model, chosen by {@link TokenizerFamily#forModel}.
   *
   * @param model {@code provider/model} or a bare model name; null or unknown gives the default
   *     estimate
   */
  public static TokenCounter forModel(String model) {
    return forFamily(TokenizerFamily.forModel(model));
  }

  /** The counter of a family; {@link TokenizerFamily#ESTIMATE} gives the default estimate. */
  public static TokenCounter forFamily(TokenizerFamily family) {
    return switch (family) {
      case O200K_BASE -> o200k();
      case CL100K_BASE -> cl100k();
      case ESTIMATE -> estimate();
    };
  }

  /**
   * Exact counts with {@code o200k_base} (the same as jtokkit's {@code countTokensOrdinary}) and
   * OpenAI overheads.
   */
  public static TokenCounter o200k() {
    return O200k.COUNTER;
  }

  /** Exact counts with jtokkit's {@code cl100k_base} and OpenAI overheads. */
  public static TokenCounter cl100k() {
    return Cl100k.COUNTER;
  }

  /** The estimate with {@link #DEFAULT_CHARS_PER_TOKEN} and {@link MessageOverhead#ESTIMATE}. */
  public static TokenCounter estimate() {
    return DefaultEstimate.INSTANCE;
  }

  /**
   * An estimate of {@code ceil(code points / charsPerToken)} per text, with {@link
   * MessageOverhead#ESTIMATE}. Its name is {@code estimate(<ratio to 3 decimals>)}.
   *
   * @throws IllegalArgumentException when the ratio is not finite or not &gt; 0
   */
  public static TokenCounter estimate(double charsPerToken) {
    if (!Double.isFinite(charsPerToken) || charsPerToken <= 0) {
      throw new IllegalArgumentException(
          "chars per token must be a finite number > 0, got " + charsPerToken);
    }
    return new CachingTokenCounter(
        String.format(Locale.ROOT, "estimate(%.3f)", charsPerToken),
        TokenizerFamily.ESTIMATE,
        new EstimateTokenizer(charsPerToken),
        MessageOverhead.ESTIMATE,
        null);
  }

  /**
   * A counter over any tokenizer, with the same message accounting and caching as the built-in ones
   * (including the shared content-hash cache).
   *
   * @param name unique name of what this counter computes (part of the shared cache key)
   * @param family the family it stands for
   * @param tokenizer thread-safe, deterministic text tokenizer
   * @param overhead overheads to add
   */
  public static TokenCounter custom(
      String name, TokenizerFamily family, TextTokenizer tokenizer, MessageOverhead overhead) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a custom token counter needs a name");
    }
    return new CachingTokenCounter(name, family, tokenizer, overhead, SHARED_CACHE);
  }

  private static final class DefaultEstimate {
    static final TokenCounter INSTANCE = estimate(DEFAULT_CHARS_PER_TOKEN);
  }

  // One holder per encoding: each rank file (several MB) loads on first use of its own counter,
  // so a command on a gpt-4o conversation never parses cl100k's, nor the other way round.
  // o200k_base is counted by our own BPE over ranks in flat arrays (the compact form made at build
  // time loads in milliseconds; jtokkit's map-based load takes a few hundred in a fresh process):
  // the same counts as jtokkit's countTokensOrdinary.
  private static final class O200k {
    static final TokenCounter COUNTER =
        new CachingTokenCounter(
            TokenizerFamily.O200K_BASE.wireName(),
            TokenizerFamily.O200K_BASE,
            BpeTokenizer.of(BpeTokenizer.Encoding.O200K_BASE),
            MessageOverhead.OPENAI,
            SHARED_CACHE,
            O200kSplitter::breaksCleanlyAt);
  }

  private static final class Cl100k {
    static final TokenCounter COUNTER = bpe(EncodingType.CL100K_BASE, TokenizerFamily.CL100K_BASE);
  }

  private static TokenCounter bpe(EncodingType type, TokenizerFamily family) {
    Encoding encoding = Encodings.newLazyEncodingRegistry().getEncoding(type);
    return new CachingTokenCounter(
        family.wireName(),
        family,
        encoding::countTokensOrdinary,
        MessageOverhead.OPENAI,
        SHARED_CACHE);
  }
}
