package dev.compactor.core.compaction.text;

import java.util.Set;
import java.util.function.BiConsumer;

/**
 * Finds the names of functions, classes and variables that a text (code, a shell command, a tool
 * output, prose about code) uses, so that a compaction can keep them when the text goes.
 *
 * <p>A name is at least 3 characters of letters, digits and {@code _} (not starting with a digit)
 * and one of:
 *
 * <ul>
 *   <li>{@link Kind#DEFINED}: the name after {@code def}, {@code class}, {@code function}, {@code
 *       fn}, {@code func}, {@code interface}, {@code record} or {@code enum};
 *   <li>{@link Kind#CALLED}: a name directly followed by {@code (};
 *   <li>{@link Kind#CAMEL}: a CamelCase name with two or more capitals and a lower-case letter
 *       ({@code DataFrame}, {@code TokenWindowChatMemory});
 *   <li>{@link Kind#SNAKE}: a snake_case name with an inner underscore and a lower-case letter
 *       ({@code get_value}, {@code __init__}).
 * </ul>
 *
 * Language keywords and ubiquitous built-ins ({@code print}, {@code len}, {@code self}, …) and tool
 * call ids ({@code call_…}, {@code toolu_…}) are left out: they carry no information about the
 * work. One pass, no regular expressions; stateless and thread-safe.
 */
final class CodeNames {
  private CodeNames() {}

  /** What makes a word a name, in order of how much it says about the code. */
  enum Kind {
    DEFINED,
    CALLED,
    CAMEL,
    SNAKE
  }

  private static final Set<String> DEFINERS =
      Set.of("def", "class", "function", "fn", "func", "interface", "record", "enum");

  private static final Set<String> COMMON =
      Set.of(
          "if",
          "for",
          "while",
          "with",
          "and",
          "not",
          "return",
          "print",
          "len",
          "str",
          "int",
          "float",
          "bool",
          "list",
          "dict",
          "set",
          "tuple",
          "range",
          "open",
          "type",
          "isinstance",
          "super",
          "format",
          "repr",
          "sorted",
          "min",
          "max",
          "sum",
          "any",
          "all",
          "map",
          "filter",
          "zip",
          "enumerate",
          "self",
          "cls",
          "get",
          "append",
          "join",
          "split",
          "strip",
          "replace",
          "items",
          "keys",
          "values",
          "echo",
          "main",
          "init",
          "new",
          "this",
          "catch",
          "switch",
          "elif",
          "else",
          "assert",
          "lambda",
          "yield",
          "import",
          "from",
          "except",
          "raise",
          "try",
          "sizeof",
          "hasattr",
          "getattr",
          "setattr",
          "callable",
          "iter",
          "next",
          "abs",
          "round",
          "exit");

  /**
   * Calls {@code sink} for every name of {@code text}, in order, repeats included.
   *
   * @param text never null
   * @param sink receives each name and why it is one
   */
  static void forEach(String text, BiConsumer<String, Kind> sink) {
    int n = text.length();
    int i = 0;
    boolean afterDefiner = false; // "def", "class", … then only spaces up to here
    while (i < n) {
      char c = text.charAt(i);
      if (!isNameStart(c) || (i > 0 && isNamePart(text.charAt(i - 1)))) {
        if (c != ' ') {
          afterDefiner = false;
        }
        i++;
        continue;
      }
      int start = i;
      int uppers = 0;
      boolean lower = false;
      boolean innerUnderscore = false;
      while (i < n && isNamePart(text.charAt(i))) {
        char d = text.charAt(i);
        if (d >= 'A' && d <= 'Z') {
          uppers++;
        } else if (d >= 'a' && d <= 'z') {
          lower = true;
        } else if (d == '_' && i > start && i + 1 < n && isNamePart(text.charAt(i + 1))) {
          innerUnderscore = true;
        }
        i++;
      }
      int len = i - start;
      if (len >= 3) {
        Kind kind = null;
        if (afterDefiner) {
          kind = Kind.DEFINED;
        } else if (i < n && text.charAt(i) == '(') {
          kind = Kind.CALLED;
        } else if (uppers >= 2 && lower && Character.isUpperCase(text.charAt(start)) && len >= 4) {
          kind = Kind.CAMEL;
        } else if (innerUnderscore && lower && len >= 4) {
          kind = Kind.SNAKE;
        }
        if (kind != null) {
          String name = text.substring(start, i);
          if (!COMMON.contains(name) && !isCallId(name)) {
            sink.accept(name, kind);
          }
        }
      }
      afterDefiner = isDefiner(text, start, i);
    }
  }

  /** Tool call ids ({@code call_…}, {@code toolu_…}, {@code fc_…}) are not names. */
  private static boolean isCallId(String name) {
    return name.startsWith("call_") || name.startsWith("toolu_") || name.startsWith("fc_");
  }

  private static boolean isDefiner(String text, int start, int end) {
    int len = end - start;
    if (len < 2 || len > 9) {
      return false;
    }
    for (String d : DEFINERS) {
      if (d.length() == len && text.regionMatches(start, d, 0, len)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isNameStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  }

  private static boolean isNamePart(char c) {
    return isNameStart(c) || (c >= '0' && c <= '9');
  }
}
