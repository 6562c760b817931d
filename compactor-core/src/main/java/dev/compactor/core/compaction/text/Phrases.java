package dev.compactor.core.compaction.text;

import java.util.List;
import java.util.Locale;

/**
 * A set of lower-case phrases matched as whole words in lower-cased text with {@link
 * String#indexOf} (much cheaper than a case-insensitive regular expression alternation, which tries
 * every alternative at every position).
 */
final class Phrases {
  private final String[] phrases;

  Phrases(List<String> phrases) {
    this.phrases = phrases.stream().map(p -> p.toLowerCase(Locale.ROOT)).toArray(String[]::new);
  }

  /** True when one of the phrases occurs in {@code lower} as whole words. */
  boolean in(String lower) {
    for (String p : phrases) {
      int from = 0;
      while (true) {
        int i = lower.indexOf(p, from);
        if (i < 0) {
          break;
        }
        int end = i + p.length();
        if ((i == 0 || !isWordChar(lower.charAt(i - 1)))
            && (end == lower.length() || !isWordChar(lower.charAt(end)))) {
          return true;
        }
        from = i + 1;
      }
    }
    return false;
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '\'';
  }
}
