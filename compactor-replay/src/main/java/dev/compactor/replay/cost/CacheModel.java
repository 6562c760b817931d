package dev.compactor.replay.cost;

/**
 * How prompt caching is billed. Each call's input is split into the prefix unchanged since the
 * previous call of the same conversation (a cache read) and the rest (written to the cache).
 *
 * <ul>
 *   <li>{@link #OPENAI}: reads at 10 % of the input price, writes at the plain input price;
 *   <li>{@link #ANTHROPIC}: reads at 10 %, writes at 125 % (the 5-minute cache write premium).
 * </ul>
 *
 * Simplifications, the same for every strategy: the cache never expires between calls of one
 * conversation, any prefix length is cacheable (OpenAI caches from 1,024 tokens in 128-token steps;
 * Anthropic caches up to the last breakpoint, here assumed at the end of every request), and the
 * prefix is compared message by message (a message that changed is billed whole, as if its first
 * tokens were not cached).
 */
public enum CacheModel {
  /** Reads at 10 %, no write premium. */
  OPENAI(0.10, 1.00),
  /** Reads at 10 %, writes at 125 %. */
  ANTHROPIC(0.10, 1.25);

  private final double read;
  private final double write;

  CacheModel(double read, double write) {
    this.read = read;
    this.write = write;
  }

  /** Multiplier of the input price for a cached token. */
  public double readRate() {
    return read;
  }

  /** Multiplier of the input price for an uncached token (written to the cache). */
  public double writeRate() {
    return write;
  }

  /** USD for one call's input: {@code cached} tokens read from the cache, the rest written. */
  public double inputCost(Price price, long inputTokens, long cachedTokens) {
    if (cachedTokens < 0 || cachedTokens > inputTokens) {
      throw new IllegalArgumentException(
          "cached tokens must be in [0, " + inputTokens + "], got " + cachedTokens);
    }
    return price.input(read * cachedTokens + write * (inputTokens - cachedTokens));
  }

  /** Lower-case name used in reports: {@code openai}, {@code anthropic}. */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
