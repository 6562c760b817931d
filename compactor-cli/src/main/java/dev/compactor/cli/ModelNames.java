package dev.compactor.cli;

import dev.compactor.core.catalog.InvalidSettingException;
import dev.compactor.core.catalog.ModelCatalog;
import dev.compactor.core.catalog.ModelInfo;
import dev.compactor.models.ModelProvider;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/** The one check every command applies to a model named with {@code --model}. */
final class ModelNames {
  private ModelNames() {}

  /**
   * {@code value} stripped, when it is {@code provider/model} with a known provider and a model
   * name; null stays null.
   *
   * @throws InvalidSettingException naming the value and {@code option} otherwise
   */
  static String check(String value, String option) {
    if (value == null) {
      return null;
    }
    String s = value.strip();
    int slash = s.indexOf('/');
    if (slash <= 0 || slash == s.length() - 1) {
      throw new InvalidSettingException(
          "model",
          value,
          option,
          "must be provider/model, e.g. openai/gpt-4o or anthropic/claude-sonnet-4-5 (providers: "
              + String.join(", ", providers())
              + ")");
    }
    if (s.chars().anyMatch(Character::isWhitespace)) {
      throw new InvalidSettingException("model", value, option, "must not contain spaces");
    }
    String provider = s.substring(0, slash).toLowerCase(Locale.ROOT);
    if (!providers().contains(provider)) {
      throw new InvalidSettingException(
          "model",
          value,
          option,
          "names an unknown provider \""
              + provider
              + "\" (known: "
              + String.join(", ", providers())
              + ")");
    }
    return s;
  }

  /**
   * The providers a model name may start with: those with a client, those of the built-in catalog
   * (for token counts and windows), and {@code openrouter}.
   */
  static Set<String> providers() {
    Set<String> out = new LinkedHashSet<>();
    for (ModelProvider p : ModelProvider.values()) {
      out.add(p.id());
    }
    for (ModelInfo m : ModelCatalog.builtIn().models()) {
      out.add(m.provider().toLowerCase(Locale.ROOT));
    }
    out.add("openrouter");
    return out;
  }
}
