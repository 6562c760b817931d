package dev.compactor.core;

/**
 * The checks of a number argument against its lower bound, with one wording for every module's
 * records, builders and settings: {@code "keepHead must be >= 0, got -1"}. Each returns the value
 * it checked.
 */
public final class Bounds {
  private Bounds() {}

  /**
   * @param name what the value is, as the message names it
   * @throws IllegalArgumentException {@code "<name> must be >= <min>, got <value>"} when {@code
   *     value < min}
   */
  public static int atLeast(int min, int value, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be >= " + min + ", got " + value);
    }
    return value;
  }

  /** {@link #atLeast(int, int, String)} for a {@code long}. */
  public static long atLeast(long min, long value, String name) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be >= " + min + ", got " + value);
    }
    return value;
  }

  /**
   * @param name what the value is, as the message names it
   * @throws IllegalArgumentException {@code "<name> must be > 0, got <value>"} when {@code value <=
   *     0}
   */
  public static int positive(int value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, got " + value);
    }
    return value;
  }

  /** {@link #positive(int, String)} for a {@code long}. */
  public static long positive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, got " + value);
    }
    return value;
  }
}
