package dev.compactor.core.message;

import java.util.Locale;

/** Who a message is from. Tool results have their own role whatever shape they arrived in. */
public enum Role {
  SYSTEM,
  USER,
  ASSISTANT,
  TOOL;

  /** Lower-case wire name: {@code system}, {@code user}, {@code assistant}, {@code tool}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a wire name, case-insensitively.
   *
   * @throws IllegalArgumentException naming the value when it is not a role
   */
  public static Role parse(String value) {
    if (value != null) {
      for (Role r : values()) {
        if (r.name().equalsIgnoreCase(value.trim())) {
          return r;
        }
      }
    }
    throw new IllegalArgumentException(
        "unknown role \"" + value + "\" (expected system, user, assistant or tool)");
  }
}
