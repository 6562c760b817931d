package dev.compactor.core.compaction.text;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A set of lower-case ASCII phrases found in a text in one pass, ignoring ASCII case. Each phrase
 * carries flag bits and is matched either as whole words or anywhere (as a substring); {@link
 * #scan} returns the flags of every phrase present.
 *
 * <p>An Aho–Corasick automaton, compiled to a transition table over a small alphabet (letters,
 * digits, a few punctuation marks, everything else): one table lookup per character, whatever the
 * number of phrases. That is several times faster than one {@link String#indexOf} per phrase on a
 * lower-cased copy, which is what sentence scoring did before (a hundred phrases per sentence).
 */
final class Phrases {
  /** Alphabet class of a character outside every phrase. */
  private static final int OTHER = 0;

  private static final byte[] CLASS = new byte[128];
  private static final int CLASSES;

  static {
    int k = 1;
    for (char c = 'a'; c <= 'z'; c++) {
      CLASS[c] = (byte) k;
      CLASS[Character.toUpperCase(c)] = (byte) k;
      k++;
    }
    for (char c = '0'; c <= '9'; c++) {
      CLASS[c] = (byte) k++;
    }
    for (char c : " ',-_.!?:;/()\"".toCharArray()) {
      CLASS[c] = (byte) k++;
    }
    CLASSES = k;
  }

  private final int[] phraseLength;
  private final long[] flags;
  private final boolean[] wholeWord;

  /** {@code delta[state * CLASSES + class]}: the automaton's transitions, failures folded in. */
  private final int[] delta;

  /** Per state, the phrases that end there (its own and its failure chain's); null for none. */
  private final int[][] matches;

  /** Whole-word phrases, all with flag 1 (for {@link #in}). */
  Phrases(List<String> phrases) {
    this(new Builder().words(1, phrases));
  }

  private Phrases(Builder b) {
    int n = b.phrases.size();
    phraseLength = new int[n];
    flags = new long[n];
    wholeWord = new boolean[n];
    // the trie
    List<int[]> next = new ArrayList<>();
    List<List<Integer>> ends = new ArrayList<>();
    next.add(newRow());
    ends.add(new ArrayList<>());
    for (int p = 0; p < n; p++) {
      String phrase = b.phrases.get(p);
      phraseLength[p] = phrase.length();
      flags[p] = b.flags.get(p);
      wholeWord[p] = b.wholeWord.get(p);
      int s = 0;
      for (int i = 0; i < phrase.length(); i++) {
        int c = CLASS[phrase.charAt(i)];
        if (next.get(s)[c] < 0) {
          next.add(newRow());
          ends.add(new ArrayList<>());
          next.get(s)[c] = next.size() - 1;
        }
        s = next.get(s)[c];
      }
      ends.get(s).add(p);
    }
    // failure links, breadth first, folded into a complete transition table
    int states = next.size();
    int[] fail = new int[states];
    delta = new int[states * CLASSES];
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    for (int c = 0; c < CLASSES; c++) {
      int t = next.get(0)[c];
      delta[c] = Math.max(t, 0);
      if (t > 0) {
        queue.add(t);
      }
    }
    while (!queue.isEmpty()) {
      int s = queue.poll();
      ends.get(s).addAll(ends.get(fail[s]));
      for (int c = 0; c < CLASSES; c++) {
        int t = next.get(s)[c];
        int viaFail = delta[fail[s] * CLASSES + c];
        if (t < 0) {
          delta[s * CLASSES + c] = viaFail;
        } else {
          fail[t] = viaFail;
          delta[s * CLASSES + c] = t;
          queue.add(t);
        }
      }
    }
    matches = new int[states][];
    for (int s = 0; s < states; s++) {
      List<Integer> e = ends.get(s);
      matches[s] = e.isEmpty() ? null : e.stream().mapToInt(Integer::intValue).toArray();
    }
  }

  private static int[] newRow() {
    int[] row = new int[CLASSES];
    Arrays.fill(row, -1);
    return row;
  }

  /** Collects phrases with their flags. */
  static final class Builder {
    private final List<String> phrases = new ArrayList<>();
    private final List<Long> flags = new ArrayList<>();
    private final List<Boolean> wholeWord = new ArrayList<>();

    /** Phrases matched as whole words. */
    Builder words(long flag, List<String> list) {
      list.forEach(p -> add(p, flag, true));
      return this;
    }

    /** A phrase matched anywhere, also inside a longer word. */
    Builder substring(long flag, String phrase) {
      return add(phrase, flag, false);
    }

    private Builder add(String phrase, long flag, boolean word) {
      if (phrase.isEmpty()
          || !phrase.equals(phrase.toLowerCase(Locale.ROOT))
          || !phrase.chars().allMatch(c -> c < 128 && CLASS[c] != OTHER)) {
        throw new IllegalArgumentException(
            "a phrase must be non-empty lower-case letters, digits and common punctuation, got \""
                + phrase
                + "\"");
      }
      if (flag == 0) {
        throw new IllegalArgumentException("the flag of \"" + phrase + "\" has no bit set");
      }
      phrases.add(phrase);
      flags.add(flag);
      wholeWord.add(word);
      return this;
    }

    Phrases build() {
      return new Phrases(this);
    }
  }

  /** True when one of the phrases occurs in {@code text}. */
  boolean in(String text) {
    return scan(text, true) != 0;
  }

  /** The flags of the phrases that occur in {@code text}, or-ed. */
  long scan(String text) {
    return scan(text, false);
  }

  private long scan(String text, boolean first) {
    long found = 0;
    int n = text.length();
    int s = 0;
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      s = delta[s * CLASSES + (c < 128 ? CLASS[c] : OTHER)];
      int[] ending = matches[s];
      if (ending == null) {
        continue;
      }
      for (int p : ending) {
        if ((found & flags[p]) == flags[p]) {
          continue;
        }
        if (wholeWord[p]) {
          int start = i - phraseLength[p] + 1;
          if ((start > 0 && isWordChar(text.charAt(start - 1)))
              || (i + 1 < n && isWordChar(text.charAt(i + 1)))) {
            continue;
          }
        }
        found |= flags[p];
        if (first) {
          return found;
        }
      }
    }
    return found;
  }

  private static boolean isWordChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '\'';
  }
}
