package dev.compactor.providers.codeaware;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Condenses the prose of a Markdown text and leaves its fenced code blocks byte for byte.
 *
 * <p>Fences follow CommonMark: a line starting (after up to three spaces) with three or more
 * backticks or tildes opens a block that the first line with at least as many of the same character
 * closes; an unclosed block runs to the end. Prose is cut into paragraphs at blank lines. Headings
 * stay. A list keeps its first item and the items that name a file or an error. Any other paragraph
 * keeps its first sentence and the sentences that name a file or an error; a paragraph that lost
 * sentences ends with {@value #OMITTED}. Condensing a condensed text changes nothing.
 *
 * <p>Stateless and thread-safe.
 */
final class ProseCondenser {
  static final String OMITTED = "[…]";

  private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,}).*");
  private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+");
  private static final Pattern LIST_ITEM = Pattern.compile("^\\s*(?:[-*+]|\\d+[.)])\\s+.*");
  private static final Pattern NAMES_FILE_OR_ERROR =
      Pattern.compile(
          "(?:[\\w.-]+/)+[\\w.-]+" // a path
              + "|\\b[\\w-]+\\.(?:java|kt|scala|py|js|ts|tsx|go|rs|rb|c|h|cpp|cs|md|json|ya?ml"
              + "|toml|xml|gradle|properties|sql|sh|txt|html|css)\\b" // a file name
              + "|\\b\\w*(?:Error|Exception)\\b" // an exception type
              + "|(?i:\\berror\\b|\\bfail(?:s|ed|ure|ing)?\\b|\\bexception\\b|\\btraceback\\b)");

  private ProseCondenser() {}

  /** The text with its prose condensed; the same text when there is nothing to drop. */
  static String condense(String text) {
    String[] lines = text.split("\n", -1);
    List<String> blocks = new ArrayList<>();
    StringBuilder prose = new StringBuilder();
    int i = 0;
    while (i < lines.length) {
      var open = FENCE.matcher(lines[i]);
      if (!open.matches()) {
        prose.append(lines[i]).append('\n');
        i++;
        continue;
      }
      flushProse(prose, blocks);
      String fence = open.group(1);
      StringBuilder code = new StringBuilder(lines[i]);
      i++;
      while (i < lines.length) {
        String line = lines[i];
        code.append('\n').append(line);
        i++;
        if (closes(line, fence)) {
          break;
        }
      }
      blocks.add(code.toString());
    }
    flushProse(prose, blocks);
    return String.join("\n\n", blocks);
  }

  /** True when the text has at least one fenced code block. */
  static boolean hasFencedCode(String text) {
    for (String line : text.split("\n")) {
      if (FENCE.matcher(line).matches()) {
        return true;
      }
    }
    return false;
  }

  private static boolean closes(String line, String fence) {
    String s = line.strip();
    if (s.length() < fence.length() || line.length() - line.stripLeading().length() > 3) {
      return false;
    }
    char c = fence.charAt(0);
    for (int k = 0; k < s.length(); k++) {
      if (s.charAt(k) != c) {
        return false;
      }
    }
    return true;
  }

  private static void flushProse(StringBuilder prose, List<String> blocks) {
    String text = prose.toString();
    prose.setLength(0);
    for (String paragraph : text.split("\n\\s*\n")) {
      if (!paragraph.isBlank()) {
        blocks.add(condenseParagraph(paragraph.replaceAll("^\n+", "")));
      }
    }
  }

  private static boolean isIndentedCode(String[] lines) {
    for (String line : lines) {
      if (!line.isBlank() && !line.startsWith("    ") && !line.startsWith("\t")) {
        return false;
      }
    }
    return true;
  }

  private static String condenseParagraph(String paragraph) {
    String p = paragraph.strip();
    if (p.startsWith("#") || p.startsWith("|") || p.startsWith(">")) {
      return p; // headings, tables and quotes are short or structural: keep them
    }
    String[] lines = paragraph.split("\n");
    if (isIndentedCode(lines)) {
      return paragraph.stripTrailing(); // an indented code block is code: verbatim
    }
    if (LIST_ITEM.matcher(lines[0]).matches()) {
      return condenseList(lines);
    }
    boolean hadMarker = p.endsWith(" " + OMITTED) || p.equals(OMITTED);
    String body = hadMarker ? p.substring(0, p.length() - OMITTED.length()).strip() : p;
    String[] sentences = SENTENCE_END.split(body.replaceAll("\\s*\n\\s*", " "));
    List<String> kept = new ArrayList<>();
    for (int k = 0; k < sentences.length; k++) {
      if (k == 0 || NAMES_FILE_OR_ERROR.matcher(sentences[k]).find()) {
        kept.add(sentences[k]);
      }
    }
    if (kept.size() == sentences.length && !hadMarker) {
      return p;
    }
    return String.join(" ", kept) + " " + OMITTED;
  }

  private static String condenseList(String[] lines) {
    List<String> kept = new ArrayList<>();
    boolean dropped = false;
    for (int k = 0; k < lines.length; k++) {
      String line = lines[k];
      if (line.strip().equals(OMITTED)) {
        dropped = true;
      } else if (k == 0 || NAMES_FILE_OR_ERROR.matcher(line).find()) {
        kept.add(line);
      } else {
        dropped = true;
      }
    }
    if (dropped) {
      kept.add(OMITTED);
    }
    return String.join("\n", kept);
  }
}
