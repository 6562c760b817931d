package dev.compactor.chat.settings;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.regex.Pattern;

/**
 * Parses whole numbers the way chat task settings accept them: a JSON integer, or a string of
 * digits in which single underscores may group digits ({@code "200_000"}). Fractions, exponents,
 * signs, blanks and other strings are rejected.
 */
public final class WholeNumbers {
  private static final Pattern DIGITS = Pattern.compile("[0-9]+(_[0-9]+)*");

  private WholeNumbers() {}

  /**
   * The value as a whole number, or null when it is not one.
   *
   * @param node a JSON value, not null
   */
  public static BigInteger parse(JsonNode node) {
    if (node.isIntegralNumber()) {
      return node.bigIntegerValue();
    }
    if (node.isTextual() && DIGITS.matcher(node.textValue()).matches()) {
      return new BigInteger(node.textValue().replace("_", ""));
    }
    return null;
  }

  /** The JSON value as it appeared, for error messages: strings quoted, others as JSON. */
  public static String show(JsonNode node) {
    return node.isTextual() ? "\"" + node.textValue() + "\"" : node.toString();
  }
}
