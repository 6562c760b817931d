package dev.compactor.core.model;

import java.util.Objects;

/**
 * A function tool offered to the model: what a {@link ChatRequest} carries and what {@link
 * dev.compactor.core.tokens.TokenCounter#countToolDefinitions} counts.
 *
 * @param name tool name, not blank
 * @param description what the tool does, never null (empty when none)
 * @param jsonSchema the JSON schema of the arguments as JSON text, never null; empty means "an
 *     object with no declared properties". Clients parse it and fail with a message naming the tool
 *     when it is not a JSON object.
 */
public record ToolSpec(String name, String description, String jsonSchema) {
  public ToolSpec {
    Objects.requireNonNull(name, "tool name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("tool name must not be blank");
    }
    description = description == null ? "" : description;
    jsonSchema = jsonSchema == null ? "" : jsonSchema;
  }
}
