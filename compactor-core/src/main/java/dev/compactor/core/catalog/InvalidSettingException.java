package dev.compactor.core.catalog;

import dev.compactor.core.CompactorException;

/**
 * A configured value is invalid: a context budget, a context length, a model catalog entry. The
 * message names the value and where it came from, e.g. {@code context budget "0.0" from
 * COMPACTOR_CONTEXT_BUDGET must be > 0}.
 */
public class InvalidSettingException extends CompactorException {
  private static final long serialVersionUID = 1L;

  private final String setting;
  private final String value;
  private final String source;

  /**
   * @param setting what the value sets, e.g. {@code context budget}
   * @param value the value as given (may be null when it was missing)
   * @param source where it came from, e.g. {@code COMPACTOR_CONTEXT_BUDGET}
   * @param problem what is wrong, e.g. {@code must be > 0}
   */
  public InvalidSettingException(String setting, String value, String source, String problem) {
    super(setting + " \"" + value + "\" from " + source + " " + problem);
    this.setting = setting;
    this.value = value;
    this.source = source;
  }

  public String setting() {
    return setting;
  }

  public String value() {
    return value;
  }

  public String source() {
    return source;
  }
}
