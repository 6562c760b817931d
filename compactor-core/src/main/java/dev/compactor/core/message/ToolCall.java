package dev.compactor.core.message;

import java.util.Objects;

/**
 * A tool call requested by an assistant message.
 *
 * @param id provider-assigned call id that the tool result refers to
 * @param name tool name
 * @param arguments arguments as the provider sent them (usually a JSON object text), never null
 */
public record ToolCall(String id, String name, String arguments) {
  public ToolCall {
    Objects.requireNonNull(id, "tool call id");
    if (id.isBlank()) {
      throw new IllegalArgumentException("tool call id must not be blank");
    }
    name = name == null ? "" : name;
    arguments = arguments == null ? "" : arguments;
  }
}
