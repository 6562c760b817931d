package dev.compactor.core.compaction.mask;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Picks the identifiers a tool output names — exception and error names, test names, file paths
 * (with line numbers), ids — so that a placeholder can keep them when the output itself goes.
 *
 * <p>Bounded: at most {@code max} mentions, each at most {@value #MAX_LENGTH} characters, a few per
 * kind, kinds in the order above (errors first: they are what the model most often needs to see
 * again), each kind in order of first occurrence. Every pattern is linear in the text. Stateless
 * and thread-safe.
 */
final class Mentions {
  static final int MAX_LENGTH = 80;

  private static final String EXT =
      "(?:java|kt|kts|scala|groovy|py|pyi|ipynb|js|mjs|cjs|ts|tsx|jsx|go|rs|rb|php|c|h|cc|cpp|hpp"
          + "|cs|swift|m|sh|bash|zsh|sql|html|css|scss|vue|svelte|md|rst|txt|json|jsonl|ya?ml|toml"
          + "|xml|gradle|properties|ini|cfg|conf|lock|csv|tsv|log|proto|tf|dockerfile)";

  /** Exception/error type names, qualified or not; group 1 is the simple name. */
  private static final Pattern ERROR =
      Pattern.compile(
          "\\b(?:[A-Za-z_$][\\w$]*\\.)*([A-Z][\\w$]*(?:Error|Exception|Failure|Fault))\\b");

  /** pytest node ids, test_ functions, JUnit-style test classes with an optional method. */
  private static final Pattern TEST =
      Pattern.compile(
          "(?<![\\w./-])((?:[\\w.-]+/)*[\\w.-]+\\.py::[\\w\\[\\]:.-]+)"
              + "|\\b(test_\\w+)"
              + "|\\b([A-Z]\\w*(?:Test|Tests|IT|Spec)(?:#\\w+|\\.(?!"
              + EXT
              + "\\b)[a-z]\\w*)?)\\b");

  /** Paths with at least one slash, optionally followed by :line[:column]. */
  private static final Pattern PATH =
      Pattern.compile(
          "(?<![\\w./~:-])((?:~|\\.{1,2})?/?(?:[\\w@+-][\\w.@+-]*/)+[\\w@+-][\\w.@+-]*(?::\\d+){0,2})");

  /** Bare file names with a known extension, optionally followed by :line[:column]. */
  private static final Pattern FILE =
      Pattern.compile("(?<![\\w./-])([\\w-]+\\." + EXT + "(?::\\d+){0,2})\\b");

  /** Numbers that look like ids or line numbers. */
  private static final Pattern ID =
      Pattern.compile(
          "\\b((?:line|Line|LINE)\\s+\\d+)"
              + "|\\b((?:id|ID|Id|pid|PID|PR|pr|issue|Issue|ticket|order|request|job|run)"
              + "[ =:#-]{0,3}\\d+)\\b"
              + "|(?<![\\w#])(#\\d{2,})\\b"
              + "|\\b([A-Z][A-Z0-9]{1,9}-\\d{2,})\\b"
              + "|\\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\\b"
              + "|\\b((?=[0-9a-f]*\\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40})\\b");

  private static final Pattern HAS_EXTENSION = Pattern.compile(".*\\.\\w{1,10}(?::\\d+){0,2}");

  private Mentions() {}

  /** At most {@code max} identifiers named in {@code text}, most useful kinds first. */
  static List<String> of(String text, int max) {
    Set<String> out = new LinkedHashSet<>();
    collect(ERROR, text, 3, max, out, s -> true);
    collect(TEST, text, 3, max, out, s -> true);
    collect(PATH, text, 4, max, out, Mentions::looksLikePath);
    collect(FILE, text, 4, max, out, s -> true);
    collect(ID, text, 3, max, out, s -> true);
    return new ArrayList<>(out);
  }

  private static boolean looksLikePath(String s) {
    // "and/or", "km/h" are prose: a path has an extension or at least two separators.
    int slashes = (int) s.chars().filter(c -> c == '/').count();
    return s.chars().anyMatch(Character::isLetter)
        && (slashes >= 2 || HAS_EXTENSION.matcher(s).matches());
  }

  private static void collect(
      Pattern p,
      String text,
      int perKind,
      int max,
      Set<String> out,
      java.util.function.Predicate<String> accept) {
    int taken = 0;
    Matcher m = p.matcher(text);
    while (taken < perKind && out.size() < max && m.find()) {
      String s = firstGroup(m);
      if (s == null || s.length() > MAX_LENGTH || !accept.test(s) || said(s, out)) {
        continue;
      }
      out.add(s);
      taken++;
    }
  }

  private static String firstGroup(Matcher m) {
    for (int g = 1; g <= m.groupCount(); g++) {
      if (m.group(g) != null) {
        return m.group(g);
      }
    }
    return null;
  }

  /**
   * Whether {@code s} is already said: equal to or part of a mention taken before. A mention that
   * contains earlier ones (a test id containing its test name) replaces them, keeping the order.
   */
  private static boolean said(String s, Set<String> out) {
    List<String> current = new ArrayList<>(out);
    boolean replaced = false;
    for (int i = 0; i < current.size(); i++) {
      String o = current.get(i);
      if (o.contains(s)) {
        return true;
      }
      if (s.contains(o)) {
        current.set(i, replaced ? null : s);
        replaced = true;
      }
    }
    if (replaced) {
      out.clear();
      current.stream().filter(java.util.Objects::nonNull).forEach(out::add);
    }
    return replaced;
  }
}
