package dev.compactor.core.tokens;

import java.util.Locale;

/**
 * How the tokens of a model family are counted.
 *
 * <p>OpenAI models are counted exactly with their BPE encodings (jtokkit): {@link #O200K_BASE} for
 * gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1/o3/o4 and gpt-oss; {@link #CL100K_BASE} for gpt-4, gpt-3.5
 * and the embedding models. Every other model (Anthropic, Google, local models, unknown names) is
 * {@link #ESTIMATE}: characters divided by a chars-per-token ratio, calibrated against
 * provider-reported usage where there is any (see {@link Calibration}).
 */
public enum TokenizerFamily {
  O200K_BASE("o200k_base"),
  CL100K_BASE("cl100k_base"),
  ESTIMATE("estimate");

  private final String wireName;

  TokenizerFamily(String wireName) {
    this.wireName = wireName;
  }

  /** The name used in the model catalog and in counter names: {@code o200k_base}, … */
  public String wireName() {
    return wireName;
  }

  /**
   * Parses a wire name ({@code o200k_base}, {@code cl100k_base}, {@code estimate}),
   * case-insensitively.
   *
   * @throws IllegalArgumentException naming the value when it is none of them
   */
  public static TokenizerFamily parse(String value) {
    if (value != null) {
      for (TokenizerFamily f : values()) {
        if (f.wireName.equalsIgnoreCase(value.trim())) {
          return f;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown tokenizer \"" + value + "\" (expected o200k_base, cl100k_base or estimate)");
  }

  /**
   * The family of a model named {@code provider/model} or bare {@code model}, from its name alone.
   *
   * <p>Rules, on the lower-cased last path segment of the name (so {@code openrouter/openai/gpt-4o}
   * and {@code azure/gpt-4o} are both {@code gpt-4o}):
   *
   * <ul>
   *   <li>{@code gpt-4o*}, {@code chatgpt-4o*}, {@code gpt-4.1*}, {@code gpt-4.5*}, {@code gpt-5*},
   *       {@code o1*}, {@code o3*}, {@code o4*}, {@code gpt-oss*}, {@code codex*} → o200k_base
   *   <li>other {@code gpt-4*}, {@code gpt-3.5*}, {@code gpt-35*}, {@code text-embedding*} →
   *       cl100k_base
   *   <li>any other model of provider {@code openai} → o200k_base (its current encoding)
   *   <li>everything else → estimate
   * </ul>
   *
   * @param model a model name; null or blank gives {@link #ESTIMATE}
   */
  public static TokenizerFamily forModel(String model) {
    if (model == null || model.isBlank()) {
      return ESTIMATE;
    }
    String id = model.trim().toLowerCase(Locale.ROOT);
    String name = id.substring(id.lastIndexOf('/') + 1);
    if (name.startsWith("gpt-4o")
        || name.startsWith("chatgpt-4o")
        || name.startsWith("gpt-4.1")
        || name.startsWith("gpt-4.5")
        || name.startsWith("gpt-5")
        || name.startsWith("gpt-oss")
        || name.startsWith("codex")
        || isOSeries(name)) {
      return O200K_BASE;
    }
    if (name.startsWith("gpt-4")
        || name.startsWith("gpt-3.5")
        || name.startsWith("gpt-35")
        || name.startsWith("text-embedding")) {
      return CL100K_BASE;
    }
    if (id.startsWith("openai/")) {
      return O200K_BASE;
    }
    return ESTIMATE;
  }

  // o1, o1-mini, o3-pro, o4-mini-2025-04-16 … but not "ollama" or "o1x"
  private static boolean isOSeries(String name) {
    if (name.length() < 2 || name.charAt(0) != 'o') {
      return false;
    }
    int i = 1;
    while (i < name.length() && Character.isDigit(name.charAt(i))) {
      i++;
    }
    return i > 1 && (i == name.length() || name.charAt(i) == '-');
  }
}
