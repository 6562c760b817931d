package dev.compactor.wire.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.json.MessageFormatException;
import java.util.ArrayList;
import java.util.List;

/**
 * The tools a request offers the model, in both directions: {@link ToolSpec}s written as each
 * provider's request takes them, and an OpenAI-style {@code tools} array read back.
 *
 * <ul>
 *   <li>Chat Completions: {@code
 *       {"type":"function","function":{"name","description","parameters"}}}
 *   <li>Responses: {@code {"type":"function","name","description","parameters"}}
 *   <li>Anthropic Messages: {@code {"name","description","input_schema"}}
 * </ul>
 */
public final class ToolDefinitions {
  private ToolDefinitions() {}

  /** The request shape a tool is written in. */
  public enum Dialect {
    CHAT_COMPLETIONS,
    RESPONSES,
    ANTHROPIC
  }

  /**
   * Appends {@code tool} to {@code tools} in {@code dialect}'s shape: its name, its description
   * unless empty, and its {@link #schema}.
   *
   * @throws IllegalArgumentException naming the tool when its schema is not a JSON object
   */
  public static void add(ArrayNode tools, ToolSpec tool, Dialect dialect) {
    ObjectNode target =
        switch (dialect) {
          case CHAT_COMPLETIONS -> tools.addObject().put("type", "function").putObject("function");
          case RESPONSES -> tools.addObject().put("type", "function");
          case ANTHROPIC -> tools.addObject();
        };
    target.put("name", tool.name());
    if (!tool.description().isEmpty()) {
      target.put("description", tool.description());
    }
    target.set(dialect == Dialect.ANTHROPIC ? "input_schema" : "parameters", schema(tool));
  }

  /**
   * The tool's schema as a JSON object ({@code {"type":"object","properties":{}}} when empty).
   *
   * @throws IllegalArgumentException naming the tool when the schema is not a JSON object
   */
  public static ObjectNode schema(ToolSpec tool) {
    if (tool.jsonSchema().isBlank()) {
      ObjectNode o = Json.object();
      o.put("type", "object");
      o.putObject("properties");
      return o;
    }
    JsonNode n = Json.tryParse(tool.jsonSchema());
    if (n == null || !n.isObject()) {
      String s = tool.jsonSchema();
      throw new IllegalArgumentException(
          "tool \""
              + tool.name()
              + "\": jsonSchema is not a JSON object: "
              + (s.length() <= 80 ? s : s.substring(0, 80) + "…"));
    }
    return (ObjectNode) n;
  }

  /**
   * Reads an OpenAI-style {@code tools} array: each entry a Chat Completions definition (its {@code
   * function} object) or a flat one (Responses), with a {@code name}, an optional {@code
   * description} and an optional {@code parameters} schema object.
   *
   * @throws MessageFormatException naming the entry ({@code tools[2].name is required}) when the
   *     value is not an array, an entry is not an object, a name is missing or blank, or the
   *     parameters are not an object
   */
  public static List<ToolSpec> read(JsonNode tools) {
    if (!tools.isArray()) {
      throw new MessageFormatException("tools must be an array");
    }
    List<ToolSpec> out = new ArrayList<>();
    int i = 0;
    for (JsonNode t : tools) {
      String where = "tools[" + i++ + "]";
      JsonNode fn = t.has("function") ? t.get("function") : t;
      if (!fn.isObject()) {
        throw new MessageFormatException(where + " must be an object");
      }
      JsonNode name = fn.get("name");
      if (name == null || !name.isTextual() || name.textValue().isBlank()) {
        throw new MessageFormatException(where + ".name is required");
      }
      JsonNode description = fn.get("description");
      JsonNode parameters = fn.get("parameters");
      if (parameters != null && !parameters.isNull() && !parameters.isObject()) {
        throw new MessageFormatException(where + ".parameters must be a JSON schema object");
      }
      out.add(
          new ToolSpec(
              name.textValue(),
              description == null || description.isNull() ? "" : description.asText(),
              parameters == null || parameters.isNull() ? "" : parameters.toString()));
    }
    return out;
  }
}
