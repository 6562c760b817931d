package dev.compactor.core.compaction.text;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * Picks the identifiers a tool output names — exception and error names, test names, file paths
 * (with line numbers), ids — so that a placeholder can keep them when the output itself goes.
 *
 * <p>Bounded: at most {@code max} mentions, each at most {@value #MAX_LENGTH} characters, a few per
 * kind, kinds in the order above (errors first: they are what the model most often needs again),
 * each kind in order of first occurrence. Of a very long output only the first and last {@value
 * #WINDOW} characters are read (commands and paths come first, errors and summaries last).
 *
 * <p>One pass: a single character-class pattern cuts the text into word-like tokens, and each token
 * is classified with string checks, small patterns running only on tokens that pass them (the
 * masking of a long session reads megabytes). Stateless and thread-safe.
 */
final class Mentions {
  /** The longest mention kept, in characters. */
  static final int MAX_LENGTH = 80;

  static final int WINDOW = 20_000;

  private enum Kind {
    ERROR(3),
    TEST(3),
    PATH(4),
    ID(3);

    final int cap;

    Kind(int cap) {
      this.cap = cap;
    }
  }

  private static final Pattern ERROR =
      Pattern.compile("[A-Z][\\w$]*(?:Error|Exception|Failure|Fault)");
  private static final Pattern TEST_CLASS =
      Pattern.compile("[A-Z]\\w*(?:Test|Tests|IT|Spec)(?:[.#][a-z]\\w*)?");
  private static final Pattern PYTEST_ID = Pattern.compile("[\\w./-]+\\.py::[\\w:.-]+");
  private static final Pattern TEST_FUNCTION = Pattern.compile("test_\\w+");
  private static final Pattern PATH =
      Pattern.compile("(?:~|\\.{1,2})?/?(?:[\\w@+-][\\w.@+-]*/)+[\\w@+-][\\w.@+-]*(?::\\d+){0,2}");
  private static final Pattern FILE = Pattern.compile("[\\w-]+\\.\\w+(?::\\d+){0,2}");
  private static final Pattern HAS_EXTENSION = Pattern.compile(".*\\.\\w{1,10}(?::\\d+){0,2}");
  private static final Pattern LINE_NUMBER_SUFFIX = Pattern.compile(":\\d+(?::\\d+)?$");
  private static final Pattern KEYED_ID =
      Pattern.compile("(?:id|ID|Id|pid|PID|PR|pr|issue|ticket|order|request|job|run)[=:#-]\\d+");
  private static final Pattern TICKET = Pattern.compile("[A-Z][A-Z0-9]{1,9}-\\d{2,}");
  private static final Pattern UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final Pattern HEX =
      Pattern.compile("(?=[0-9a-f]*\\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}");
  private static final Set<String> ID_WORDS =
      Set.of(
          "id", "ID", "Id", "pid", "PID", "PR", "pr", "issue", "Issue", "ticket", "order",
          "request", "job", "run");
  private static final Set<String> LINE_WORDS = Set.of("line", "Line", "LINE");

  private Mentions() {}

  /** At most {@code max} identifiers named in {@code text}, most useful kinds first. */
  static List<String> of(String text, int max) {
    List<List<String>> found = new ArrayList<>();
    for (int k = 0; k < Kind.values().length; k++) {
      found.add(new ArrayList<>());
    }
    if (text.length() <= 2 * WINDOW) {
      scan(text, 0, text.length(), found);
    } else {
      scan(text, 0, WINDOW, found);
      scan(text, text.length() - WINDOW, text.length(), found);
    }
    List<String> out = new ArrayList<>();
    for (List<String> kind : found) {
      for (String s : kind) {
        if (out.size() < max) {
          add(s, out);
        }
      }
    }
    return out;
  }

  /**
   * At most {@code max} code names ({@link CodeNames}) of {@code text} that are not in {@code
   * exclude}: names it defines first, then the others by how often it uses them, then by first
   * occurrence. Read like {@link #of}: the first and last {@value #WINDOW} characters of a long
   * text.
   */
  static List<String> names(String text, int max, Set<String> exclude) {
    if (max <= 0) {
      return List.of();
    }
    Map<String, int[]> stats = new LinkedHashMap<>(); // defined, uses
    BiConsumer<String, CodeNames.Kind> sink =
        (name, kind) -> {
          if (name.length() <= MAX_LENGTH && !exclude.contains(name)) {
            int[] s = stats.computeIfAbsent(name, k -> new int[2]);
            if (kind == CodeNames.Kind.DEFINED) {
              s[0] = 1;
            }
            s[1]++;
          }
        };
    if (text.length() <= 2 * WINDOW) {
      CodeNames.forEach(text, sink);
    } else {
      CodeNames.forEach(text.substring(0, WINDOW), sink);
      CodeNames.forEach(text.substring(text.length() - WINDOW), sink);
    }
    List<Map.Entry<String, int[]>> ranked = new ArrayList<>(stats.entrySet());
    // stable: equal ones keep their order of first occurrence
    ranked.sort(
        Comparator.comparingInt((Map.Entry<String, int[]> e) -> -e.getValue()[0])
            .thenComparingInt(e -> -e.getValue()[1]));
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, int[]> e : ranked) {
      if (out.size() >= max) {
        break;
      }
      out.add(e.getKey());
    }
    return out;
  }

  private static void scan(String text, int from, int to, List<List<String>> found) {
    String previous = "";
    int i = from;
    while (i < to) {
      while (i < to && !isTokenChar(text.charAt(i))) {
        i++;
      }
      int start = i;
      while (i < to && isTokenChar(text.charAt(i))) {
        i++;
      }
      if (i > start) {
        String token = strip(text.substring(start, i));
        if (!token.isEmpty()) {
          classify(token, previous, found);
          previous = token;
        }
        if (full(found)) {
          return;
        }
      }
    }
  }

  /** ASCII letters and digits, '_' and the punctuation of paths, keys and ids. */
  private static boolean isTokenChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '_'
        || (c < 128 && "./:@#~=+-".indexOf(c) >= 0);
  }

  private static void classify(String t, String previous, List<List<String>> found) {
    if (t.length() > MAX_LENGTH) {
      return;
    }
    // Errors: the simple name of a (possibly qualified) exception type.
    String simple = t.substring(t.lastIndexOf('.') + 1);
    if (endsWithErrorWord(simple) && ERROR.matcher(simple).matches()) {
      offer(found, Kind.ERROR, simple);
      return;
    }
    // Tests.
    if (t.contains(".py::") && PYTEST_ID.matcher(t).matches()) {
      offer(found, Kind.TEST, t);
      return;
    }
    if (t.startsWith("test_") && TEST_FUNCTION.matcher(t).matches()) {
      offer(found, Kind.TEST, t);
      return;
    }
    if (Character.isUpperCase(t.charAt(0))
        && (t.contains("Test") || t.contains("IT") || t.contains("Spec"))) {
      String noLine = LINE_NUMBER_SUFFIX.matcher(t).replaceFirst("");
      if (TEST_CLASS.matcher(noLine).matches()) {
        offer(found, Kind.TEST, noLine);
        return;
      }
    }
    // Paths and file names.
    if (t.indexOf('/') >= 0) {
      if (!t.contains("//") && looksLikePath(t) && PATH.matcher(t).matches()) {
        offer(found, Kind.PATH, t);
      }
      return;
    }
    if (t.indexOf('.') > 0 && hasKnownExtension(t) && FILE.matcher(t).matches()) {
      offer(found, Kind.PATH, t);
      return;
    }
    // Numbers that look like ids or line numbers.
    char c = t.charAt(0);
    if (c == '#' || (c >= '0' && c <= '9')) {
      String digits = c == '#' ? t.substring(1) : t;
      if (LINE_WORDS.contains(previous) && c != '#' && allDigits(t)) {
        offer(found, Kind.ID, previous + " " + t);
      } else if (ID_WORDS.contains(previous) && allDigits(digits)) {
        offer(found, Kind.ID, previous + " " + t);
      } else if (c == '#' ? digits.length() >= 2 && allDigits(digits) : looksLikeHexId(t)) {
        offer(found, Kind.ID, t);
      }
    } else if (Character.isDigit(t.charAt(t.length() - 1))) {
      boolean keyed = t.indexOf('=') > 0 || t.indexOf(':') > 0 || t.indexOf('#') > 0;
      boolean dashed = t.indexOf('-') > 0;
      if ((keyed || dashed) && KEYED_ID.matcher(t).matches()
          || dashed && Character.isUpperCase(c) && TICKET.matcher(t).matches()
          || c >= 'a' && c <= 'f' && looksLikeHexId(t)) {
        offer(found, Kind.ID, t);
      }
    } else if (c >= 'a' && c <= 'f' && looksLikeHexId(t)) {
      offer(found, Kind.ID, t);
    }
  }

  private static boolean allDigits(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  /** A commit hash (7-40 hex digits, some letters, some digits) or a lowercase UUID. */
  private static boolean looksLikeHexId(String t) {
    int n = t.length();
    if (n == 36) {
      return UUID.matcher(t).matches();
    }
    return n >= 7 && n <= 40 && HEX.matcher(t).matches();
  }

  /** Whether the part after the last dot, line numbers removed, is a known file extension. */
  private static boolean hasKnownExtension(String t) {
    int dot = t.lastIndexOf('.');
    int end = t.indexOf(':', dot);
    String ext = t.substring(dot + 1, end < 0 ? t.length() : end);
    return TextFeatures.isKnownExtension(ext);
  }

  private static boolean endsWithErrorWord(String s) {
    return s.endsWith("Error")
        || s.endsWith("Exception")
        || s.endsWith("Failure")
        || s.endsWith("Fault");
  }

  private static boolean looksLikePath(String s) {
    // "and/or", "km/h" are prose: a path has an extension or at least two separators.
    int slashes = 0;
    boolean letter = false;
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      slashes += ch == '/' ? 1 : 0;
      letter |= Character.isLetter(ch);
    }
    return letter && (slashes >= 2 || HAS_EXTENSION.matcher(s).matches());
  }

  /** Drops punctuation that ends a sentence or a key around a token. */
  private static String strip(String t) {
    int start = 0;
    int end = t.length();
    while (start < end && ":=+".indexOf(t.charAt(start)) >= 0) {
      start++;
    }
    while (end > start && ".:,=#-+/~".indexOf(t.charAt(end - 1)) >= 0) {
      end--;
    }
    return t.substring(start, end);
  }

  private static void offer(List<List<String>> found, Kind kind, String s) {
    List<String> list = found.get(kind.ordinal());
    if (list.size() < kind.cap && !list.contains(s)) {
      list.add(s);
    }
  }

  private static boolean full(List<List<String>> found) {
    for (Kind k : Kind.values()) {
      if (found.get(k.ordinal()).size() < k.cap) {
        return false;
      }
    }
    return true;
  }

  /**
   * Adds {@code s} unless already said: equal to or part of a mention taken before. A mention that
   * contains earlier ones (a test id containing its test name) replaces them, keeping the order.
   */
  private static void add(String s, List<String> out) {
    boolean replaced = false;
    for (int i = 0; i < out.size(); i++) {
      String o = out.get(i);
      if (o == null) {
        continue;
      }
      if (o.contains(s)) {
        return;
      }
      if (s.contains(o)) {
        out.set(i, replaced ? null : s);
        replaced = true;
      }
    }
    if (replaced) {
      out.removeIf(Objects::isNull);
    } else {
      out.add(s);
    }
  }
}
