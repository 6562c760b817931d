package dev.compactor.core.tokens;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/*
 * Design: one TokenCounter implementation for every family; only the TextTokenizer differs.
 * Message counts go through two cache levels. Level 1 is a WeakHashMap keyed by the (immutable)
 * Message itself: re-measuring the same message objects costs a hash lookup each, and messages
 * nobody references any more drop out, so memory is bounded by the live conversations. Level 2
 * (BPE tokenizers only, where tokenizing costs far more than hashing) is the shared LRU keyed by
 * counter name + SHA-256 of exactly what is counted, so an equal message re-read from disk or
 * re-created in another view with another id is not tokenized again. Estimates skip level 2:
 * counting code points is cheaper than hashing them.
 *
 * Short texts (a line of output, a marker) have a cache of their own, per counter and keyed by the
 * text itself, so it is exact: truncating a large output counts its head and tail line by line, and
 * the next trim of the same output meets the same lines. It is bounded by entries and by text
 * length, and emptied when full (cheaper than keeping an LRU order for entries this small).
 *
 * Counting many uncounted messages at once (a conversation loaded into a new process) runs on the
 * common fork-join pool when there is enough text: tokenizing is CPU-bound and the messages are
 * independent.
 *
 * A message made of lines counted before (a truncated output: its head and tail lines were counted
 * one by one to choose the cut) is counted by countMessageReusingLines as the sum of its parts,
 * cut at the line breaks where the encoding's split proves the sum exact (LineBreaks), each part
 * from the short-text cache when it is there: only the marker between head and tail is tokenized.
 */
final class CachingTokenCounter implements TokenCounter {
  private final String name;
  private final TokenizerFamily family;
  private final TextTokenizer tokenizer;
  private final MessageOverhead overhead;
  private final TokenCountCache shared;
  private final LineBreaks cleanBreaks;
  private final int[] roleTokens = new int[Role.values().length];

  /**
   * Counts by message, weakly keyed, in stripes chosen by the message's hash so that threads
   * counting different conversations (a server's requests) do not wait for one lock; the hash is
   * computed before any lock is taken.
   */
  @SuppressWarnings("unchecked")
  private final Map<Message, Integer>[] byMessage = new Map[STRIPES];

  {
    for (int i = 0; i < STRIPES; i++) {
      byMessage[i] = new WeakHashMap<>();
    }
  }

  /** {@link #byMessage} has {@code 2^STRIPE_BITS} stripes. */
  private static final int STRIPE_BITS = 5;

  private static final int STRIPES = 1 << STRIPE_BITS;

  private Map<Message, Integer> stripe(Message m) {
    return byMessage[(m.hashCode() * 0x9E3779B9) >>> (Integer.SIZE - STRIPE_BITS)];
  }

  private Integer cached(Message m) {
    Map<Message, Integer> s = stripe(m);
    synchronized (s) {
      return s.get(m);
    }
  }

  private final Map<String, Integer> shortTexts;

  /** Texts up to this many chars are cached by {@link #countText} (BPE counters only). */
  static final int SHORT_TEXT_CHARS = 256;

  /** Entries of the short-text cache before it is emptied: at most ~20 MB of Latin-1 text. */
  static final int SHORT_TEXT_ENTRIES = 65_536;

  /** Uncounted text (chars) from which {@link #countEach} tokenizes on several threads. */
  static final long PARALLEL_CHARS = 1 << 20;

  /**
   * Where a text's tokens are the sum of the tokens of its parts: for a split pattern in which no
   * piece crosses a line break that this says is clean, the parts between clean breaks count the
   * same apart as together.
   */
  @FunctionalInterface
  interface LineBreaks {
    /**
     * @param b a position right after a line feed of {@code text}
     * @return whether the tokens of {@code text} are those of {@code text[0, b)} plus those of
     *     {@code text[b, n)}
     */
    boolean isClean(String text, int b);
  }

  CachingTokenCounter(
      String name,
      TokenizerFamily family,
      TextTokenizer tokenizer,
      MessageOverhead overhead,
      TokenCountCache shared) {
    this(name, family, tokenizer, overhead, shared, null);
  }

  /**
   * @param cleanBreaks the clean line breaks of the tokenizer's split, or null when the tokenizer
   *     gives no such guarantee (then every text is tokenized whole)
   */
  CachingTokenCounter(
      String name,
      TokenizerFamily family,
      TextTokenizer tokenizer,
      MessageOverhead overhead,
      TokenCountCache shared,
      LineBreaks cleanBreaks) {
    this.cleanBreaks = cleanBreaks;
    this.name = Objects.requireNonNull(name, "name");
    this.family = Objects.requireNonNull(family, "family");
    this.tokenizer = Objects.requireNonNull(tokenizer, "tokenizer");
    this.overhead = Objects.requireNonNull(overhead, "overhead");
    this.shared = shared;
    this.shortTexts = shared == null ? null : new ConcurrentHashMap<>();
    if (overhead.countRoleName()) {
      for (Role r : Role.values()) {
        roleTokens[r.ordinal()] = tokenizer.count(r.wireName());
      }
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public TokenizerFamily family() {
    return family;
  }

  @Override
  public MessageOverhead overhead() {
    return overhead;
  }

  @Override
  public int countText(String text) {
    if (text.isEmpty()) {
      return 0;
    }
    if (shortTexts == null || text.length() > SHORT_TEXT_CHARS) {
      return tokenizer.count(text);
    }
    Integer cached = shortTexts.get(text);
    if (cached != null) {
      return cached;
    }
    int n = tokenizer.count(text);
    if (shortTexts.size() >= SHORT_TEXT_ENTRIES) {
      shortTexts.clear();
    }
    shortTexts.put(text, n);
    return n;
  }

  @Override
  public int[] countEach(List<Message> messages) {
    int n = messages.size();
    int[] out = new int[n];
    long uncounted = 0;
    for (int i = 0; i < n; i++) {
      Message m = messages.get(i);
      Integer cached = m.uiOnly() ? Integer.valueOf(0) : cached(m);
      if (cached != null) {
        out[i] = cached;
      } else {
        out[i] = -1;
        uncounted += m.content().length();
      }
    }
    if (uncounted >= PARALLEL_CHARS && n > 1) {
      IntStream.range(0, n)
          .parallel()
          .filter(i -> out[i] < 0)
          .forEach(i -> out[i] = countMessage(messages.get(i)));
    } else {
      for (int i = 0; i < n; i++) {
        if (out[i] < 0) {
          out[i] = countMessage(messages.get(i));
        }
      }
    }
    return out;
  }

  @Override
  public int countMessage(Message message) {
    if (message.uiOnly()) {
      return 0;
    }
    Integer cached = cached(message);
    if (cached != null) {
      return cached;
    }
    int count;
    if (shared != null && shared.enabled()) {
      TokenCountCache.Key key = key(message);
      Integer hit = shared.get(key);
      if (hit != null) {
        count = hit;
      } else {
        count = compute(message);
        shared.put(key, count);
      }
    } else {
      count = compute(message);
    }
    Map<Message, Integer> s = stripe(message);
    synchronized (s) {
      s.put(message, count);
    }
    return count;
  }

  @Override
  public int countMessageReusingLines(Message message) {
    if (cleanBreaks == null || shortTexts == null || message.uiOnly()) {
      return countMessage(message);
    }
    Integer cached = cached(message);
    if (cached != null) {
      return cached;
    }
    // Not looked up in (nor added to) the shared content-hash level: hashing the text would cost
    // about what reusing its lines saves.
    int count = compute(message, true);
    Map<Message, Integer> s = stripe(message);
    synchronized (s) {
      s.put(message, count);
    }
    return count;
  }

  /**
   * The tokens of {@code text} as the sum of its parts between clean line breaks, each through
   * {@link #countText} (so from the short-text cache when it was counted before). Exact: the parts
   * count the same apart as together.
   */
  private int countByLines(String text) {
    int n = text.length();
    int total = 0;
    int from = 0;
    while (from < n) {
      int end = from;
      do {
        int nl = text.indexOf('\n', end);
        end = nl < 0 ? n : nl + 1;
      } while (end < n && !cleanBreaks.isClean(text, end));
      total += countText(from == 0 && end == n ? text : text.substring(from, end));
      from = end;
    }
    return total;
  }

  private int compute(Message m) {
    return compute(m, false);
  }

  private int compute(Message m, boolean byLines) {
    int n = overhead.perMessage();
    if (overhead.countRoleName()) {
      n += roleTokens[m.role().ordinal()];
    }
    n += byLines ? countByLines(m.content()) : tokenize(m.content());
    for (ReasoningBlock r : m.reasoning()) {
      n += tokenize(r.text());
    }
    for (ToolCall c : m.toolCalls()) {
      n += overhead.perToolCall() + countText(c.name()) + tokenize(c.arguments());
    }
    return n;
  }

  /** Tokenizes without the short-text cache: message texts are cached by message. */
  private int tokenize(String text) {
    return text.isEmpty() ? 0 : tokenizer.count(text);
  }

  private TokenCountCache.Key key(Message m) {
    MessageDigest md = sha256();
    update(md, m.role().wireName());
    update(md, m.content());
    for (ReasoningBlock r : m.reasoning()) {
      md.update((byte) 2);
      update(md, r.text());
    }
    for (ToolCall c : m.toolCalls()) {
      md.update((byte) 3);
      update(md, c.name());
      update(md, c.arguments());
    }
    ByteBuffer b = ByteBuffer.wrap(md.digest());
    return new TokenCountCache.Key(name, b.getLong(), b.getLong());
  }

  private static void update(MessageDigest md, String s) {
    md.update(s.getBytes(StandardCharsets.UTF_8));
    md.update((byte) 0);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  @Override
  public String toString() {
    return "TokenCounter[" + name + "]";
  }
}
