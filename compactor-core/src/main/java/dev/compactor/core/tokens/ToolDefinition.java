package dev.compactor.core.tokens;

import java.util.Objects;

/**
 * A tool as offered to a model: what {@link TokenCounter#countToolDefinitions} counts.
 *
 * @param name tool name, never null
 * @param description description, never null (empty when none)
 * @param parametersSchema the JSON schema of the parameters as text, never null (empty when none)
 */
public record ToolDefinition(String name, String description, String parametersSchema) {
  public ToolDefinition {
    Objects.requireNonNull(name, "tool name");
    description = description == null ? "" : description;
    parametersSchema = parametersSchema == null ? "" : parametersSchema;
  }
}
