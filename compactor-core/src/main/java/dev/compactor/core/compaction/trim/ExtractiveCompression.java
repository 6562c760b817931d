package dev.compactor.core.compaction.trim;

import dev.compactor.core.compaction.text.Sentences;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Extractive compression of assistant prose: fenced code blocks and headings stay verbatim, prose
 * lines are split into sentences, the best {@code max(2, int(n × ratio))} sentences by {@link
 * Sentences#score} are kept in their original order, and every line keeps its place and its list
 * marker (unlike gptme's version, which joined everything into one line).
 */
final class ExtractiveCompression {
  private ExtractiveCompression() {}

  /** Messages with this many sentences or fewer are left as they are. */
  static final int MIN_SENTENCES = 3;

  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
  private static final Pattern HEADING = Pattern.compile("^\\s{0,3}#{1,6}\\s");
  private static final Pattern LIST_MARKER = Pattern.compile("^(\\s*(?:[-*+]|\\d{1,3}[.)])\\s+)");
  private static final Pattern TABLE = Pattern.compile("^\\s*\\|");

  /** The compressed text with how many sentences were kept of how many. */
  record Compressed(String text, int kept, int total) {}

  /** One prose sentence and the line it came from. */
  private record Unit(int line, String text, int index) {}

  /**
   * Compresses {@code content}.
   *
   * @return the compressed text, or null when there are too few sentences or nothing gets shorter
   */
  static Compressed compress(String content, double ratio) {
    String[] lines = content.split("\n", -1);
    // per line: null = verbatim, else the list marker prefix ("" for plain prose)
    String[] prefix = new String[lines.length];
    boolean[] code = new boolean[lines.length];
    List<Unit> units = new ArrayList<>();
    boolean inCode = false;
    String fence = null;
    for (int l = 0; l < lines.length; l++) {
      String line = lines[l];
      Matcher f = FENCE.matcher(line);
      code[l] = inCode;
      if (f.find()) {
        code[l] = true;
        if (!inCode) {
          inCode = true;
          fence = f.group(1);
        } else if (f.group(1).equals(fence)) {
          inCode = false;
        }
        continue; // fence lines are verbatim
      }
      if (inCode || line.isBlank() || HEADING.matcher(line).find() || TABLE.matcher(line).find()) {
        continue;
      }
      Matcher lm = LIST_MARKER.matcher(line);
      String marker = lm.find() ? lm.group(1) : "";
      prefix[l] = marker;
      for (String s : Sentences.split(line.substring(marker.length()))) {
        units.add(new Unit(l, s, units.size()));
      }
    }
    int n = units.size();
    if (n <= MIN_SENTENCES) {
      return null;
    }
    int keep = Math.max(2, (int) (n * ratio));
    if (keep >= n) {
      return null;
    }
    // Rank by score, best first, ties by position: one primitive sort of (score, index) keys.
    // Scores are sums of tenths, so thousandths keep every difference.
    long[] keys = new long[n];
    for (Unit u : units) {
      long s = Math.round(-Sentences.score(u.text(), u.index(), n) * 1000);
      keys[u.index()] = (s << 32) | u.index();
    }
    Arrays.sort(keys);
    boolean[] kept = new boolean[n];
    for (int k = 0; k < keep; k++) {
      kept[(int) keys[k]] = true;
    }
    // Rebuild line by line.
    List<StringBuilder> rebuilt = new ArrayList<>(lines.length);
    boolean[] drop = new boolean[lines.length];
    for (int l = 0; l < lines.length; l++) {
      rebuilt.add(prefix[l] == null ? new StringBuilder(lines[l]) : null);
      if (prefix[l] != null) {
        drop[l] = true;
      }
    }
    for (Unit u : units) {
      if (!kept[u.index()]) {
        continue;
      }
      StringBuilder sb = rebuilt.get(u.line());
      if (sb == null) {
        sb = new StringBuilder(prefix[u.line()]).append(u.text());
        rebuilt.set(u.line(), sb);
        drop[u.line()] = false;
      } else {
        sb.append(' ').append(u.text());
      }
    }
    StringBuilder out = new StringBuilder(content.length());
    boolean lastBlank = true; // trims leading blank lines
    for (int l = 0; l < lines.length; l++) {
      if (drop[l]) {
        continue;
      }
      String line = rebuilt.get(l).toString();
      boolean blank = line.isBlank() && !code[l];
      if (blank && lastBlank) {
        continue; // collapse the blank lines left where prose was dropped
      }
      out.append(line).append('\n');
      lastBlank = blank;
    }
    String text = out.toString().stripTrailing();
    if (text.length() >= content.length()) {
      return null;
    }
    return new Compressed(text, keep, n);
  }
}
