package dev.compactor.core.tokens;

/**
 * Splits a text into the pieces of {@code o200k_base}'s pattern ({@link
 * BpeTokenizer#O200K_PATTERN}, compiled with {@code UNICODE_CHARACTER_CLASS}) without a regular
 * expression engine: the same pieces as {@code Matcher.find}, several times faster, which is most
 * of what counting a long conversation costs. The pattern's seven alternatives are tried in order
 * at each position, each with the backtracking of its greedy quantifiers:
 *
 * <ol>
 *   <li>{@code [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+} and a
 *       contraction ({@code 's 't 're 've 'm 'll 'd}, any case)
 *   <li>{@code [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*} and a
 *       contraction
 *   <li>{@code \p{N}{1,3}}
 *   <li>{@code ?[^\s\p{L}\p{N}]+[\r\n/]*}
 *   <li>{@code \s*[\r\n]+}
 *   <li>{@code \s+(?!\S)}
 *   <li>{@code \s+}
 * </ol>
 *
 * Every code point is matched by one of them, so the pieces cover the text. Characters are taken by
 * code point, as {@code java.util.regex} does (a lone surrogate is one code point); {@code \s} is
 * Unicode White_Space as {@code UNICODE_CHARACTER_CLASS} defines it.
 */
final class O200kSplitter {
  private static final int UPPERISH = 1; // \p{Lu} \p{Lt} \p{Lm} \p{Lo} \p{M}
  private static final int LOWERISH = 2; // \p{Ll} \p{Lm} \p{Lo} \p{M}
  private static final int LETTER = 4; // \p{L}
  private static final int NUMBER = 8; // \p{N}
  private static final int SPACE = 16; // \s
  private static final int CRLF = 32; // \r \n
  private static final int CRLF_SLASH = 64; // \r \n /

  private static final int[] BY_TYPE = new int[32];
  private static final int[] ASCII = new int[128];

  static {
    BY_TYPE[Character.UPPERCASE_LETTER] = UPPERISH | LETTER;
    BY_TYPE[Character.TITLECASE_LETTER] = UPPERISH | LETTER;
    BY_TYPE[Character.LOWERCASE_LETTER] = LOWERISH | LETTER;
    BY_TYPE[Character.MODIFIER_LETTER] = UPPERISH | LOWERISH | LETTER;
    BY_TYPE[Character.OTHER_LETTER] = UPPERISH | LOWERISH | LETTER;
    BY_TYPE[Character.NON_SPACING_MARK] = UPPERISH | LOWERISH;
    BY_TYPE[Character.ENCLOSING_MARK] = UPPERISH | LOWERISH;
    BY_TYPE[Character.COMBINING_SPACING_MARK] = UPPERISH | LOWERISH;
    BY_TYPE[Character.DECIMAL_DIGIT_NUMBER] = NUMBER;
    BY_TYPE[Character.LETTER_NUMBER] = NUMBER;
    BY_TYPE[Character.OTHER_NUMBER] = NUMBER;
    BY_TYPE[Character.SPACE_SEPARATOR] = SPACE;
    BY_TYPE[Character.LINE_SEPARATOR] = SPACE;
    BY_TYPE[Character.PARAGRAPH_SEPARATOR] = SPACE;
    for (int c = 0; c < 128; c++) {
      ASCII[c] = slowClass(c);
    }
  }

  private O200kSplitter() {}

  private static int slowClass(int cp) {
    int m = BY_TYPE[Character.getType(cp)];
    if ((cp >= 0x9 && cp <= 0xd) || cp == 0x85) {
      m |= SPACE;
    }
    if (cp == '\r' || cp == '\n') {
      m |= CRLF | CRLF_SLASH;
    }
    if (cp == '/') {
      m |= CRLF_SLASH;
    }
    return m;
  }

  private static int classAt(String s, int i) {
    char c = s.charAt(i);
    return c < 128 ? ASCII[c] : slowClass(Character.codePointAt(s, i));
  }

  private static int next(String s, int i) {
    char c = s.charAt(i);
    return Character.isHighSurrogate(c)
            && i + 1 < s.length()
            && Character.isLowSurrogate(s.charAt(i + 1))
        ? i + 2
        : i + 1;
  }

  /** {@code [^\r\n\p{L}\p{N}]}. */
  private static boolean prefix(int m) {
    return (m & (CRLF | LETTER | NUMBER)) == 0;
  }

  /** {@code [^\s\p{L}\p{N}]}. */
  private static boolean other(int m) {
    return (m & (SPACE | LETTER | NUMBER)) == 0;
  }

  /**
   * Where the piece that starts at {@code i} ends.
   *
   * @param i a position before the end of {@code s}, at a code point boundary
   */
  static int end(String s, int i) {
    int n = s.length();
    int m = classAt(s, i);
    // 1 and 2: a word, optionally after one prefix character.
    if ((m & (UPPERISH | LOWERISH)) != 0 || (prefix(m) && i + 1 < n)) {
      // Alternative 1 with and without the prefix, then alternative 2 with and without it.
      for (int alt = 1; alt <= 2; alt++) {
        int e = word(s, i, m, true, alt == 1);
        if (e < 0) {
          e = word(s, i, m, false, alt == 1);
        }
        if (e >= 0) {
          return e;
        }
      }
    }
    // 3: one to three digits.
    if ((m & NUMBER) != 0) {
      int j = next(s, i);
      for (int k = 1; k < 3 && j < n && (classAt(s, j) & NUMBER) != 0; k++) {
        j = next(s, j);
      }
      return j;
    }
    // 4: punctuation and symbols, optionally after a space, and the line breaks and slashes after.
    int start = i;
    if (s.charAt(i) == ' ' && i + 1 < n && other(classAt(s, i + 1))) {
      start = i + 1;
    }
    if (other(start == i ? m : classAt(s, start))) {
      int j = next(s, start);
      while (j < n && other(classAt(s, j))) {
        j = next(s, j);
      }
      while (j < n && (classAt(s, j) & CRLF_SLASH) != 0) {
        j++;
      }
      return j;
    }
    // 5, 6, 7: white space (every white space character is one char).
    int j = i;
    int lastBreak = -1;
    while (j < n && (classAt(s, j) & SPACE) != 0) {
      if ((classAt(s, j) & CRLF) != 0) {
        lastBreak = j;
      }
      j++;
    }
    if (j == i) {
      throw new IllegalStateException(
          "no o200k_base piece starts at char "
              + i
              + " (U+"
              + Integer.toHexString(s.codePointAt(i))
              + ")");
    }
    if (lastBreak >= 0) {
      return lastBreak + 1; // \s*[\r\n]+ backs off to the last line break
    }
    if (j == n || j - i == 1) {
      return j; // \s+(?!\S) at the end of the text, or \s+
    }
    return j - 1; // \s+(?!\S): all but the last, which goes with what follows
  }

  /**
   * Alternative 1 ({@code U*L+}) or 2 ({@code U+L*}), with or without the prefix character, where U
   * is upper-ish and L lower-ish: the end of the match, or -1.
   *
   * @param m the class of the code point at {@code i}
   */
  private static int word(String s, int i, int m, boolean withPrefix, boolean first) {
    int n = s.length();
    int start = i;
    if (withPrefix) {
      if (!prefix(m)) {
        return -1;
      }
      start = next(s, i);
      if (start >= n) {
        return -1;
      }
    }
    // The upper-ish run, greedily, remembering its last lower-ish character.
    int e = start;
    int lastLower = -1;
    int c = 0;
    while (e < n && ((c = classAt(s, e)) & UPPERISH) != 0) {
      if ((c & LOWERISH) != 0) {
        lastLower = e;
      }
      e = next(s, e);
    }
    int lowerFrom;
    if (!first) {
      if (e == start) {
        return -1;
      }
      lowerFrom = e; // U+ then L*: the lower-ish run may be empty
    } else if (e < n && (c & LOWERISH) != 0) {
      lowerFrom = e; // U* then L+ without backing off
    } else if (lastLower >= 0) {
      lowerFrom = lastLower; // U* gives back its run down to its last lower-ish character
    } else {
      return -1;
    }
    int j = lowerFrom;
    while (j < n && (classAt(s, j) & LOWERISH) != 0) {
      j = next(s, j);
    }
    return contraction(s, j);
  }

  /**
   * Whether the split of {@code s} breaks cleanly at {@code b}, the position right after a line
   * feed: a piece ends at {@code b}, the pieces before it are those of {@code s[0, b)} split alone
   * and the pieces from it on those of {@code s[b, n)} split alone, so the tokens of {@code s} are
   * the tokens of the two parts added up. The line feed is in one of two kinds of piece: white
   * space (alternative 5, which ends at the last line break of a run of white space) or, when the
   * line ends in punctuation, the line breaks and slashes that alternative 4 takes after it. So the
   * break is clean unless white space after it runs up to another line break, or a {@code /}
   * follows it after punctuation (any character that is not white space, a letter or a number
   * counts as punctuation here, which errs on the side of unclean). Nothing else in the pattern
   * looks past a line feed: no word or number takes one, and no piece starts with one but a
   * white-space piece.
   *
   * @param b a position after {@code s.charAt(b - 1) == '\n'}, at most {@code s.length()}
   */
  static boolean breaksCleanlyAt(String s, int b) {
    int n = s.length();
    if (b >= n) {
      return true;
    }
    if (s.charAt(b) == '/') {
      int k = b - 2;
      while (k >= 0 && (s.charAt(k) == '\n' || s.charAt(k) == '\r')) {
        k--;
      }
      return k < 0 || !other(classAt(s, k));
    }
    for (int j = b; j < n; j++) {
      int m = classAt(s, j);
      if ((m & SPACE) == 0) {
        return true;
      }
      if ((m & CRLF) != 0) {
        return false;
      }
    }
    return true;
  }

  /** {@code (?i:'s|'t|'re|'ve|'m|'ll|'d)?} at {@code j}: where it ends. */
  private static int contraction(String s, int j) {
    int n = s.length();
    if (j + 1 >= n || s.charAt(j) != '\'') {
      return j;
    }
    char a = fold(s.charAt(j + 1));
    if (a == 's' || a == 't' || a == 'm' || a == 'd') {
      return j + 2;
    }
    if (j + 2 < n) {
      char b = fold(s.charAt(j + 2));
      if (((a == 'r' || a == 'v') && b == 'e') || (a == 'l' && b == 'l')) {
        return j + 3;
      }
    }
    return j;
  }

  /** Case folding as {@code java.util.regex} does it under {@code UNICODE_CASE}. */
  private static char fold(char c) {
    return Character.toLowerCase(Character.toUpperCase(c));
  }
}
