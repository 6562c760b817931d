package dev.compactor.core.catalog;

import dev.compactor.core.Bounds;
import dev.compactor.core.tokens.TokenizerFamily;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What Compactor knows about a model.
 *
 * @param id {@code provider/model}, lower case
 * @param provider the part of the id before the first {@code /} ({@code unknown} when the id has
 *     none)
 * @param name the part after it
 * @param contextWindow the provider's context window in tokens, &gt; 0
 * @param maxOutputTokens the most tokens one response may produce, &ge; 0; reserved out of the
 *     window by the budget
 * @param contextBudget the model's own budget override (model metadata layer): a fraction &le; 1 of
 *     the window or a whole number of tokens &gt; 1; empty for the default
 * @param tokenizer how its tokens are counted
 * @param windowValidated whether the model has been shown to work reliably near its full window
 *     (such models may carry a {@code contextBudget} above the 256k default cap)
 * @param windowSource where {@code contextWindow} came from: {@code model catalog}, {@code default
 *     for unknown models}, {@code COMPACTOR_CONTEXT_LENGTH}, a user configuration key…
 */
public record ModelInfo(
    String id,
    String provider,
    String name,
    long contextWindow,
    int maxOutputTokens,
    OptionalDouble contextBudget,
    TokenizerFamily tokenizer,
    boolean windowValidated,
    String windowSource) {

  public ModelInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(tokenizer, "tokenizer");
    Objects.requireNonNull(windowSource, "windowSource");
    contextBudget = contextBudget == null ? OptionalDouble.empty() : contextBudget;
    Bounds.positive(contextWindow, "model " + id + ": context window");
    Bounds.atLeast(0, maxOutputTokens, "model " + id + ": max output tokens");
    if (contextBudget.isPresent()) {
      double b = contextBudget.getAsDouble();
      if (!Double.isFinite(b) || b <= 0 || (b > 1 && b != Math.floor(b))) {
        throw new IllegalArgumentException(
            "model "
                + id
                + ": context budget must be a fraction <= 1 or a whole number of tokens, got "
                + b);
      }
    }
  }

  /**
   * A model with the given window and output limit, no budget override, the tokenizer its name
   * implies, not validated, window from the {@code model catalog}.
   *
   * @param id {@code provider/model} or a bare name (provider {@code unknown})
   */
  public static ModelInfo of(String id, long contextWindow, int maxOutputTokens) {
    return guessed(id, contextWindow, maxOutputTokens, ModelCatalog.SOURCE_CATALOG);
  }

  /**
   * A model with the given window and output limit, no budget override, the tokenizer its name
   * implies, not validated, window from {@code windowSource}.
   */
  static ModelInfo guessed(
      String id, long contextWindow, int maxOutputTokens, String windowSource) {
    String norm = normalize(id);
    return new ModelInfo(
        norm,
        providerOf(norm),
        nameOf(norm),
        contextWindow,
        maxOutputTokens,
        OptionalDouble.empty(),
        TokenizerFamily.forModel(norm),
        false,
        windowSource);
  }

  /** This model with another window, recording where it came from. */
  public ModelInfo withContextWindow(long window, String source) {
    return new ModelInfo(
        id,
        provider,
        name,
        window,
        maxOutputTokens,
        contextBudget,
        tokenizer,
        windowValidated,
        source);
  }

  public ModelInfo withMaxOutputTokens(int maxOutput) {
    return new ModelInfo(
        id,
        provider,
        name,
        contextWindow,
        maxOutput,
        contextBudget,
        tokenizer,
        windowValidated,
        windowSource);
  }

  public ModelInfo withContextBudget(double budget) {
    return new ModelInfo(
        id,
        provider,
        name,
        contextWindow,
        maxOutputTokens,
        OptionalDouble.of(budget),
        tokenizer,
        windowValidated,
        windowSource);
  }

  public ModelInfo withId(String newId) {
    String norm = normalize(newId);
    return new ModelInfo(
        norm,
        providerOf(norm),
        nameOf(norm),
        contextWindow,
        maxOutputTokens,
        contextBudget,
        tokenizer,
        windowValidated,
        windowSource);
  }

  static String normalize(String id) {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("model name must not be blank");
    }
    return id.trim().toLowerCase(Locale.ROOT);
  }

  static String providerOf(String id) {
    int slash = id.indexOf('/');
    return slash < 0 ? "unknown" : id.substring(0, slash);
  }

  static String nameOf(String id) {
    return id.substring(id.indexOf('/') + 1);
  }
}
