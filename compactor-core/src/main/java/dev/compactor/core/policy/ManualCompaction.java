package dev.compactor.core.policy;

import dev.compactor.core.CompactorException;
import java.util.Locale;
import java.util.Optional;

/**
 * A parsed {@code /compact} chat command, for any REPL or chat front end.
 *
 * <ul>
 *   <li>{@code /compact} and {@code /compact trim}: rule-based trim;
 *   <li>{@code /compact summarize [instructions]}: structured checkpoint summary;
 *   <li>{@code /compact auto} and {@code /compact resume}: deprecated aliases of {@code trim} and
 *       {@code summarize}; they still work and carry a deprecation warning.
 * </ul>
 *
 * @param strategy {@code trim} or {@code summarize}
 * @param instructions inline instructions for {@code summarize}, or empty
 * @param warning a deprecation warning to show, or empty
 */
public record ManualCompaction(
    String strategy, Optional<String> instructions, Optional<String> warning) {

  public static final String TRIM = "trim";
  public static final String SUMMARIZE = "summarize";

  /** Whether {@code line} is a {@code /compact} command (case-insensitive, leading spaces ok). */
  public static boolean isCommand(String line) {
    if (line == null) {
      return false;
    }
    String s = line.strip().toLowerCase(Locale.ROOT);
    return s.equals("/compact") || s.startsWith("/compact ");
  }

  /**
   * Parses a {@code /compact} line.
   *
   * @throws CompactorException naming the word when the strategy is unknown or the line is not a
   *     {@code /compact} command
   */
  public static ManualCompaction parse(String line) {
    if (!isCommand(line)) {
      throw new CompactorException("not a /compact command: \"" + line + "\"");
    }
    String rest = line.strip().substring("/compact".length()).strip();
    if (rest.isEmpty()) {
      return new ManualCompaction(TRIM, Optional.empty(), Optional.empty());
    }
    int sp = indexOfWhitespace(rest);
    String word = (sp < 0 ? rest : rest.substring(0, sp)).toLowerCase(Locale.ROOT);
    String tail = sp < 0 ? "" : rest.substring(sp).strip();
    Optional<String> instructions = tail.isEmpty() ? Optional.empty() : Optional.of(tail);
    switch (word) {
      case TRIM:
        return new ManualCompaction(TRIM, rejectInstructions(word, tail), Optional.empty());
      case SUMMARIZE:
        return new ManualCompaction(SUMMARIZE, instructions, Optional.empty());
      case "auto":
        return new ManualCompaction(
            TRIM,
            rejectInstructions(word, tail),
            Optional.of("/compact auto is deprecated; use /compact trim"));
      case "resume":
        return new ManualCompaction(
            SUMMARIZE,
            instructions,
            Optional.of("/compact resume is deprecated; use /compact summarize"));
      default:
        throw new CompactorException(
            "unknown /compact strategy \""
                + word
                + "\" (use /compact, /compact trim or /compact summarize [instructions])");
    }
  }

  private static Optional<String> rejectInstructions(String word, String tail) {
    if (!tail.isEmpty()) {
      throw new CompactorException(
          "/compact "
              + word
              + " takes no instructions (got \""
              + tail
              + "\"); use /compact summarize "
              + tail);
    }
    return Optional.empty();
  }

  private static int indexOfWhitespace(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isWhitespace(s.charAt(i))) {
        return i;
      }
    }
    return -1;
  }
}
