package dev.compactor.core.compaction.text;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Finds file paths, error words and identifiers in text with hand-written single-pass scanners (no
 * regular expressions: tool outputs run to megabytes and every compaction scans them).
 *
 * <p>A <em>file path</em> is a token of letters, digits and {@code _ - . / ~} that either contains
 * a slash and looks like a path (starts with {@code /}, {@code ~} or {@code .}, has two or more
 * slashes, or ends in a file name with a known extension), or is a bare file name with a known
 * extension ({@code pom.xml}, {@code InvoiceService.java}). Java package names ({@code
 * com.acme.billing}), method chains ({@code item.price}), numbers ({@code 0.2}) and abbreviations
 * ({@code e.g.}) are not paths. URLs and closing tags ({@code </think>}) are not paths.
 */
public final class TextFeatures {
  private TextFeatures() {}

  /** The kinds of identifier {@link #identifiers} reports, in order of importance. */
  public enum IdentifierKind {
    /** A file path or file name. */
    PATH,
    /** An exception or error type name, e.g. {@code NullPointerException}. */
    ERROR_NAME,
    /** A tool call id, e.g. {@code call_00042} or {@code toolu_01A…}. */
    CALL_ID,
    /** An issue or ticket number, e.g. {@code #123} or {@code BILL-42}. */
    ISSUE,
    /** A quoted string (double quotes or backticks), without its quotes. */
    QUOTED,
    /** A number of four or more digits. */
    NUMBER
  }

  private static final Set<String> EXTENSIONS =
      Set.of(
          "java",
          "kt",
          "kts",
          "scala",
          "groovy",
          "gradle",
          "py",
          "pyi",
          "ipynb",
          "js",
          "mjs",
          "cjs",
          "ts",
          "tsx",
          "jsx",
          "vue",
          "svelte",
          "go",
          "rs",
          "c",
          "h",
          "cc",
          "cpp",
          "hpp",
          "cs",
          "fs",
          "rb",
          "php",
          "swift",
          "m",
          "mm",
          "dart",
          "lua",
          "pl",
          "r",
          "jl",
          "ex",
          "exs",
          "erl",
          "hs",
          "ml",
          "clj",
          "sh",
          "bash",
          "zsh",
          "fish",
          "ps1",
          "bat",
          "md",
          "rst",
          "adoc",
          "txt",
          "json",
          "jsonl",
          "yaml",
          "yml",
          "toml",
          "xml",
          "html",
          "htm",
          "css",
          "scss",
          "less",
          "sql",
          "csv",
          "tsv",
          "properties",
          "cfg",
          "ini",
          "conf",
          "env",
          "lock",
          "log",
          "proto",
          "graphql",
          "tf",
          "mk",
          "cmake",
          "dockerfile",
          "so",
          "dll",
          "dylib",
          "jar",
          "war",
          "class",
          "o",
          "a",
          "gz",
          "tgz",
          "zip",
          "tar",
          "png",
          "jpg",
          "jpeg",
          "gif",
          "svg",
          "pdf",
          "diff",
          "patch",
          "pem",
          "service",
          "tex",
          "bib",
          "sbt",
          "pom",
          "nix",
          "lockb",
          "wasm");

  private static final long[] EXTENSION_CODES =
      EXTENSIONS.stream().mapToLong(e -> extensionCode(e, 0, e.length())).sorted().toArray();

  private static final boolean[] PATH_CHAR = new boolean[128];

  static {
    for (char c = 'a'; c <= 'z'; c++) {
      PATH_CHAR[c] = true;
      PATH_CHAR[Character.toUpperCase(c)] = true;
    }
    for (char c = '0'; c <= '9'; c++) {
      PATH_CHAR[c] = true;
    }
    for (char c : "_-./~".toCharArray()) {
      PATH_CHAR[c] = true;
    }
  }

  /** True when the text contains error, exception, traceback, failed or failure (any case). */
  public static boolean containsErrorWord(String s) {
    int n = s.length() - 4; // every word is at least 5 characters long
    for (int i = 0; i < n; i++) {
      switch (s.charAt(i) | 0x20) {
        case 'e':
          int e2 = s.charAt(i + 1) | 0x20;
          if ((e2 == 'r' && s.regionMatches(true, i, "error", 0, 5))
              || (e2 == 'x' && s.regionMatches(true, i, "exception", 0, 9))) {
            return true;
          }
          break;
        case 't':
          if ((s.charAt(i + 1) | 0x20) == 'r' && s.regionMatches(true, i, "traceback", 0, 9)) {
            return true;
          }
          break;
        case 'f':
          if ((s.charAt(i + 1) | 0x20) == 'a'
              && (s.regionMatches(true, i, "failed", 0, 6)
                  || s.regionMatches(true, i, "failure", 0, 7))) {
            return true;
          }
          break;
        default:
          break;
      }
    }
    return false;
  }

  /** The distinct file paths of a text, in order of first appearance. */
  public static Set<String> filePaths(String text) {
    Set<String> out = new LinkedHashSet<>();
    forEachFilePath(text, false, out::add);
    return out;
  }

  /**
   * Calls {@code sink} for every file path in {@code text}, in order, repeats included.
   *
   * @param withBaseNames also report the file name of each path that has directories (so that a
   *     later mention of {@code InvoiceService.java} matches {@code src/…/InvoiceService.java})
   */
  public static void forEachFilePath(String text, boolean withBaseNames, Consumer<String> sink) {
    scanFilePaths(
        text,
        withBaseNames,
        p -> {
          sink.accept(p);
          return true;
        });
  }

  /** True when {@code text} names a file path (as {@link #filePaths} finds them). */
  public static boolean containsFilePath(String text) {
    if (text.indexOf('/') < 0 && !hasDotBeforePathChar(text)) {
      return false; // without a slash a path needs ".ext": most prose sentences stop here
    }
    return scanFilePaths(text, false, p -> false);
  }

  private static boolean hasDotBeforePathChar(String text) {
    int n = text.length();
    for (int i = text.indexOf('.'); i >= 0 && i + 1 < n; i = text.indexOf('.', i + 1)) {
      if (isPathChar(text.charAt(i + 1))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Hands every file path to {@code sink} until it returns false.
   *
   * @return true when the sink stopped the scan
   */
  private static boolean scanFilePaths(String text, boolean withBaseNames, Predicate<String> sink) {
    int n = text.length();
    int i = 0;
    while (i < n) {
      char c = text.charAt(i);
      if (!isPathChar(c)) {
        i++;
        continue;
      }
      int start = i;
      boolean slash = false;
      boolean dot = false;
      while (i < n) {
        char d = text.charAt(i);
        if (!isPathChar(d)) {
          break;
        }
        if (d == '/') {
          slash = true;
        } else if (d == '.') {
          dot = true;
        }
        i++;
      }
      if (!slash && !dot) {
        continue;
      }
      if (slash && start > 0 && (text.charAt(start - 1) == ':' || text.charAt(start - 1) == '<')) {
        continue; // the rest of a URL (scheme://host/path) or a closing tag (</think>)
      }
      String path = pathOf(text, start, i, slash);
      if (path != null) {
        if (!sink.test(path)) {
          return true;
        }
        if (withBaseNames) {
          int sep = path.lastIndexOf('/');
          if (sep >= 0
              && sep < path.length() - 1
              && hasKnownExtension(path, sep + 1, path.length())
              && !sink.test(path.substring(sep + 1))) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** True when the text contains a URL ({@code http://}, {@code https://} or {@code www.}). */
  public static boolean containsUrl(String s) {
    return s.contains("://") || s.contains("www.");
  }

  /**
   * The identifiers of a text: file paths, error type names, tool call ids, issue numbers, quoted
   * strings (3-80 characters on one line, not JSON keys) and numbers of four or more digits.
   *
   * @return identifier to kind, in order of first appearance
   */
  static Map<String, IdentifierKind> identifiers(String text) {
    Map<String, IdentifierKind> out = new LinkedHashMap<>();
    identifiers(text, true, out);
    return out;
  }

  /**
   * Adds the identifiers of a text to {@code sink}; an identifier already there keeps its position
   * and the more important of the two kinds.
   *
   * @param quoted whether to look for quoted strings (off for JSON arguments, whose quoted keys and
   *     values are noise)
   */
  static void identifiers(String text, boolean quoted, Map<String, IdentifierKind> sink) {
    forEachIdentifier(text, quoted, (id, kind) -> add(sink, id, kind));
  }

  /**
   * Calls {@code sink} for every identifier of a text, in order, repeats included.
   *
   * @param quoted whether to look for quoted strings
   */
  static void forEachIdentifier(
      String text, boolean quoted, BiConsumer<String, IdentifierKind> sink) {
    int n = text.length();
    int i = 0;
    while (i < n) {
      char c = text.charAt(i);
      if (quoted && (c == '"' || c == '`')) {
        int close = closingQuote(text, i, c);
        if (close > 0) {
          String inner = text.substring(i + 1, close).strip();
          boolean jsonKey = close + 1 < n && text.charAt(close + 1) == ':';
          if (inner.length() >= 3 && !jsonKey) {
            sink.accept(inner, IdentifierKind.QUOTED);
          }
          forEachIdentifier(inner, false, sink); // paths and names inside the quotes
          i = close + 1;
        } else {
          i++;
        }
        continue;
      }
      if (!isIdentChar(c)) {
        i++;
        continue;
      }
      int start = i;
      while (i < n && isIdentChar(text.charAt(i))) {
        i++;
      }
      classify(text, start, i, sink);
    }
  }

  /** Adds an identifier; a repeat keeps its first position and the more important kind. */
  private static void add(Map<String, IdentifierKind> sink, String id, IdentifierKind kind) {
    sink.merge(id, kind, (a, b) -> a.ordinal() <= b.ordinal() ? a : b);
  }

  private static int closingQuote(String text, int open, char q) {
    int limit = Math.min(text.length(), open + 82);
    for (int j = open + 1; j < limit; j++) {
      char d = text.charAt(j);
      if (d == q) {
        return j;
      }
      if (d == '\n') {
        return -1;
      }
    }
    return -1;
  }

  private static void classify(
      String text, int start, int end, BiConsumer<String, IdentifierKind> sink) {
    // trim trailing punctuation that belongs to the sentence
    while (end > start && (text.charAt(end - 1) == '.' || text.charAt(end - 1) == '-')) {
      end--;
    }
    if (end - start < 2) {
      return;
    }
    char first = text.charAt(start);
    if (first == '#') {
      int j = start + 1;
      while (j < end && Character.isDigit(text.charAt(j))) {
        j++;
      }
      if (j == end && end - start >= 2) {
        sink.accept(text.substring(start, end), IdentifierKind.ISSUE);
      }
      return;
    }
    boolean slash = false;
    boolean dot = false;
    boolean allDigits = true;
    for (int j = start; j < end; j++) {
      char d = text.charAt(j);
      if (d == '/') {
        slash = true;
      } else if (d == '.') {
        dot = true;
      }
      if (d < '0' || d > '9') {
        allDigits = false;
      }
    }
    if (allDigits) {
      if (end - start >= 4) {
        sink.accept(text.substring(start, end), IdentifierKind.NUMBER);
      }
      return;
    }
    if (slash || dot) {
      if (slash && start > 0 && (text.charAt(start - 1) == ':' || text.charAt(start - 1) == '<')) {
        return;
      }
      String path = pathOf(text, start, end, slash);
      if (path != null) {
        sink.accept(path, IdentifierKind.PATH);
        return;
      }
      if (slash) {
        return;
      }
      // a qualified name: report its last segment when it names an error type
      int lastDot = text.lastIndexOf('.', end - 1);
      if (lastDot >= start && isErrorName(text, lastDot + 1, end)) {
        sink.accept(text.substring(lastDot + 1, end), IdentifierKind.ERROR_NAME);
      }
      return;
    }
    if (isErrorName(text, start, end)) {
      sink.accept(text.substring(start, end), IdentifierKind.ERROR_NAME);
    } else if (isCallId(text, start, end)) {
      sink.accept(text.substring(start, end), IdentifierKind.CALL_ID);
    } else if (isTicket(text, start, end)) {
      sink.accept(text.substring(start, end), IdentifierKind.ISSUE);
    }
  }

  /** An exception or error type name: {@code NullPointerException}, {@code AssertionError}. */
  static boolean isErrorName(String t) {
    return isErrorName(t, 0, t.length());
  }

  private static boolean isErrorName(String text, int start, int end) {
    int len = end - start;
    if (len <= 5 || !Character.isUpperCase(text.charAt(start))) {
      return false;
    }
    if (len > 9 && text.regionMatches(end - 9, "Exception", 0, 9)) {
      return true;
    }
    return text.regionMatches(end - 5, "Error", 0, 5);
  }

  private static final String[] CALL_ID_PREFIXES = {"call_", "toolu_", "tool_", "fc_"};

  private static boolean isCallId(String text, int start, int end) {
    char f = (char) (text.charAt(start) | 0x20);
    if (f != 'c' && f != 't' && f != 'f') {
      return false;
    }
    for (String p : CALL_ID_PREFIXES) {
      if (end - start >= p.length() + 3 && text.regionMatches(true, start, p, 0, p.length())) {
        return true;
      }
    }
    return false;
  }

  /** A ticket key such as {@code BILL-42}: capitals (then digits), a dash, digits. */
  private static boolean isTicket(String text, int start, int end) {
    char f = text.charAt(start);
    if (f < 'A' || f > 'Z') {
      return false;
    }
    int dash = -1;
    for (int j = start; j < end; j++) {
      if (text.charAt(j) == '-') {
        if (dash >= 0) {
          return false;
        }
        dash = j;
      }
    }
    if (dash - start < 2 || dash == end - 1) {
      return false;
    }
    for (int j = start + 1; j < dash; j++) {
      char d = text.charAt(j);
      if (!(d >= 'A' && d <= 'Z') && !(d >= '0' && d <= '9')) {
        return false;
      }
    }
    for (int j = dash + 1; j < end; j++) {
      char d = text.charAt(j);
      if (d < '0' || d > '9') {
        return false;
      }
    }
    return true;
  }

  private static boolean isPathChar(char c) {
    return c < 128 ? PATH_CHAR[c] : Character.isLetterOrDigit(c);
  }

  private static boolean isIdentChar(char c) {
    return isPathChar(c) || c == '#';
  }

  /** The path in text[start, end), trimmed of sentence punctuation, or null when not a path. */
  private static String pathOf(String text, int start, int end, boolean slash) {
    while (end > start && (text.charAt(end - 1) == '.' || text.charAt(end - 1) == '-')) {
      end--;
    }
    if (end - start < 3) {
      return null;
    }
    if (!slash) {
      return hasKnownExtension(text, start, end) ? text.substring(start, end) : null;
    }
    if (text.charAt(start) == '/' && text.charAt(start + 1) == '/') {
      return null;
    }
    boolean letter = false;
    int slashes = 0;
    int lastSlash = -1;
    for (int j = start; j < end; j++) {
      char d = text.charAt(j);
      if (d == '/') {
        slashes++;
        lastSlash = j;
      } else if (!letter && Character.isLetter(d)) {
        letter = true;
      }
    }
    if (!letter) {
      return null;
    }
    char f = text.charAt(start);
    if (f == '/'
        || f == '~'
        || f == '.'
        || slashes >= 2
        || hasKnownExtension(text, lastSlash + 1, end)) {
      return text.substring(start, end);
    }
    return null;
  }

  /** True when {@code ext} (without the dot, lower case) is a known file extension. */
  static boolean isKnownExtension(String ext) {
    return EXTENSIONS.contains(ext);
  }

  /** True for {@code name.ext} where ext is a known file extension and name has a letter. */
  static boolean hasKnownExtension(String name) {
    return hasKnownExtension(name, 0, name.length());
  }

  /** {@link #hasKnownExtension(String)} on text[start, end), without allocating. */
  private static boolean hasKnownExtension(String text, int start, int end) {
    int dot = text.lastIndexOf('.', end - 1);
    if (dot < start || dot == end - 1) {
      return false;
    }
    long code = extensionCode(text, dot + 1, end);
    if (code < 0 || Arrays.binarySearch(EXTENSION_CODES, code) < 0) {
      return false;
    }
    if (dot == start) {
      return true; // a dotfile such as .env
    }
    for (int j = start; j < dot; j++) {
      if (Character.isLetter(text.charAt(j))) {
        return true;
      }
    }
    return false;
  }

  /** Base-37 code of a lower-cased extension of letters and digits, at most 10 long; else -1. */
  private static long extensionCode(CharSequence s, int from, int to) {
    if (to - from > 10 || to <= from) {
      return -1;
    }
    long code = 0;
    for (int j = from; j < to; j++) {
      char c = s.charAt(j);
      int v;
      if (c >= 'a' && c <= 'z') {
        v = c - 'a' + 1;
      } else if (c >= 'A' && c <= 'Z') {
        v = c - 'A' + 1;
      } else if (c >= '0' && c <= '9') {
        v = c - '0' + 27;
      } else {
        return -1;
      }
      code = code * 37 + v;
    }
    return code;
  }
}
