package dev.compactor.core.compaction.trim;

import dev.compactor.core.tokens.TokenCounter;

/**
 * Cuts the middle out of a long text, keeping a head and a tail on line boundaries. Only the lines
 * that are kept (plus one) are tokenized, so the cost is bounded by the budget, not by the size of
 * the output.
 */
final class Truncation {
  private Truncation() {}

  /** Share of the allowed tokens kept from the start of the output. */
  static final double HEAD_SHARE = 0.4;

  /** Share of the allowed tokens kept from the end of the output. */
  static final double TAIL_SHARE = 0.2;

  /**
   * A line longer than this many characters per remaining budget token is not tokenized: it cannot
   * fit (or hardly), and tokenizing a megabyte line would cost more than the whole trim.
   */
  private static final long MAX_CHARS_PER_TOKEN = 16;

  /** What {@link #cut} keeps and removes. */
  record Cut(
      String head,
      String removed,
      String tail,
      int headTokens,
      int tailTokens,
      int firstRemovedLine,
      int lastRemovedLine,
      int totalLines) {}

  /**
   * Splits {@code text} into head, removed middle and tail.
   *
   * @param maxTokens the allowed tokens; the head gets {@link #HEAD_SHARE}, the tail {@link
   *     #TAIL_SHARE} of them
   * @return the cut, or null when nothing would be removed
   */
  static Cut cut(String text, int maxTokens, TokenCounter counter) {
    int len = text.length();
    int headBudget = Math.max(1, (int) (maxTokens * HEAD_SHARE));
    int tailBudget = (int) (maxTokens * TAIL_SHARE);

    int headEnd = 0;
    int headTokens = 0;
    while (headEnd < len) {
      int nl = text.indexOf('\n', headEnd);
      int next = nl < 0 ? len : nl + 1;
      int t = tokensWithin(text, headEnd, next, headBudget - headTokens, counter);
      if (t < 0) {
        break;
      }
      headTokens += t;
      headEnd = next;
    }
    if (headEnd == 0 && len > 0) {
      headEnd = prefixEnd(text, 0, headBudget, counter);
      headTokens = counter.countText(text.substring(0, headEnd));
    }

    int tailStart = len;
    int tailTokens = 0;
    while (tailStart > headEnd && tailBudget > 0) {
      int prevNl = text.lastIndexOf('\n', tailStart - 2);
      int start = Math.max(prevNl + 1, headEnd);
      int t = tokensWithin(text, start, tailStart, tailBudget - tailTokens, counter);
      if (t < 0) {
        break;
      }
      tailTokens += t;
      tailStart = start;
    }
    if (tailStart == len && tailBudget > 0 && len > headEnd) {
      tailStart = suffixStart(text, headEnd, len, tailBudget, counter);
      tailTokens = counter.countText(text.substring(tailStart));
    }
    if (tailStart <= headEnd) {
      return null;
    }
    String head = text.substring(0, headEnd);
    String removed = text.substring(headEnd, tailStart);
    String tail = text.substring(tailStart);
    int headLines = newlines(text, 0, headEnd);
    int removedNewlines = newlines(text, headEnd, tailStart);
    int totalLines =
        headLines
            + removedNewlines
            + newlines(text, tailStart, len)
            + (text.endsWith("\n") ? 0 : 1);
    int first = headLines + 1;
    int last = headLines + removedNewlines + (removed.endsWith("\n") ? 0 : 1);
    return new Cut(
        head,
        removed,
        tail,
        headTokens,
        tailTokens,
        first,
        Math.max(first, last),
        Math.max(1, totalLines));
  }

  /**
   * The tokens of {@code text[from, to)} when they are at most {@code room}, else -1; a span too
   * long to fit is refused without counting it.
   */
  private static int tokensWithin(String text, int from, int to, int room, TokenCounter counter) {
    if (to - from > room * MAX_CHARS_PER_TOKEN) {
      return -1;
    }
    int t = counter.countText(text.substring(from, to));
    return t > room ? -1 : t;
  }

  /** The end of the longest prefix of text[from..] with at most {@code budget} tokens (approx.). */
  private static int prefixEnd(String text, int from, int budget, TokenCounter counter) {
    int guess = (int) Math.min(text.length() - from, budget * 4L);
    for (int attempt = 0; attempt < 8 && guess > 0; attempt++) {
      int end = safeIndex(text, from + guess);
      int t = counter.countText(text.substring(from, end));
      if (t <= budget) {
        return end;
      }
      guess = (int) (guess * (budget / (double) t) * 0.9);
    }
    return from;
  }

  /** The start of the longest suffix of text[floor..end) with at most {@code budget} tokens. */
  private static int suffixStart(
      String text, int floor, int end, int budget, TokenCounter counter) {
    int guess = (int) Math.min(end - floor, budget * 4L);
    for (int attempt = 0; attempt < 8 && guess > 0; attempt++) {
      int start = safeIndex(text, end - guess);
      int t = counter.countText(text.substring(start, end));
      if (t <= budget) {
        return start;
      }
      guess = (int) (guess * (budget / (double) t) * 0.9);
    }
    return end;
  }

  /** Moves an index off the low half of a surrogate pair. */
  private static int safeIndex(String text, int i) {
    if (i > 0 && i < text.length() && Character.isLowSurrogate(text.charAt(i))) {
      return i - 1;
    }
    return i;
  }

  /** Line breaks in {@code text[from, to)}; {@link String#indexOf(int, int)} is an intrinsic. */
  private static int newlines(String text, int from, int to) {
    int n = 0;
    for (int i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) {
      n++;
    }
    return n;
  }
}
