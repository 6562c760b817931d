package dev.compactor.wire.internal;

import java.util.List;

/** How the text parts of one message become its content. */
public final class TextParts {
  private TextParts() {}

  /**
   * Joins text parts of a request message: concatenated as they are, with a blank line between two
   * parts only when neither already has whitespace at the joint. No text is dropped or changed.
   */
  public static String join(List<String> texts) {
    if (texts.isEmpty()) {
      return "";
    }
    if (texts.size() == 1) {
      return texts.get(0);
    }
    StringBuilder sb = new StringBuilder();
    for (String t : texts) {
      if (sb.length() > 0
          && !t.isEmpty()
          && !Character.isWhitespace(sb.charAt(sb.length() - 1))
          && !Character.isWhitespace(t.charAt(0))) {
        sb.append("\n\n");
      }
      sb.append(t);
    }
    return sb.toString();
  }
}
