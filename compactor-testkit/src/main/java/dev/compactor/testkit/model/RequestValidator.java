package dev.compactor.testkit.model;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The checks a provider makes before it runs a request, with the provider's own error messages.
 * Only structural rules are checked (tool pairing, roles, required fields, cache breakpoints);
 * sizes are checked by the server against its context window.
 */
final class RequestValidator {
  /** The most {@code cache_control} breakpoints Anthropic accepts in one request. */
  static final int MAX_CACHE_CONTROL = 4;

  private RequestValidator() {}

  /** A refused request: the provider's message and the offending parameter (may be null). */
  record Rejection(String message, String param) {}

  static Optional<Rejection> validate(WireFormat format, JsonNode body) {
    if (!body.isObject()) {
      return reject("We could not parse the JSON body of your request.", null);
    }
    if (!body.path("model").isTextual() || body.path("model").asText().isBlank()) {
      return reject(
          format == WireFormat.ANTHROPIC_MESSAGES
              ? "model: Field required"
              : "you must provide a model parameter",
          "model");
    }
    return switch (format) {
      case CHAT_COMPLETIONS -> chatCompletions(body);
      case RESPONSES -> responses(body);
      case ANTHROPIC_MESSAGES -> anthropic(body);
    };
  }

  // ------------------------------------------------------------------ Chat Completions

  private static final Set<String> CHAT_ROLES =
      Set.of("system", "developer", "user", "assistant", "tool", "function");

  private static Optional<Rejection> chatCompletions(JsonNode body) {
    JsonNode messages = body.path("messages");
    if (!messages.isArray()) {
      return reject("'messages' is a required property", "messages");
    }
    if (messages.isEmpty()) {
      return reject("[] is too short - 'messages'", "messages");
    }
    Set<String> pending = new LinkedHashSet<>();
    int callerIndex = -1;
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      String role = m.path("role").asText("");
      if (!CHAT_ROLES.contains(role)) {
        return reject(
            "Invalid value: '"
                + role
                + "'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool',"
                + " and 'developer'.",
            "messages.[" + i + "].role");
      }
      if (role.equals("tool")) {
        String id = m.path("tool_call_id").asText(null);
        if (id == null || !pending.remove(id)) {
          return reject(
              "Invalid parameter: messages with role 'tool' must be a response to a preceeding"
                  + " message with 'tool_calls'.",
              "messages.[" + i + "].role");
        }
        continue;
      }
      if (!pending.isEmpty()) {
        return unansweredChatCalls(pending, callerIndex);
      }
      if (role.equals("assistant")) {
        for (JsonNode c : m.path("tool_calls")) {
          pending.add(c.path("id").asText());
          callerIndex = i;
        }
      }
    }
    if (!pending.isEmpty()) {
      return unansweredChatCalls(pending, callerIndex);
    }
    return Optional.empty();
  }

  private static Optional<Rejection> unansweredChatCalls(Set<String> pending, int index) {
    return reject(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to"
            + " each 'tool_call_id'. The following tool_call_ids did not have response messages: "
            + String.join(", ", pending),
        "messages.[" + index + "].role");
  }

  // ------------------------------------------------------------------ Responses

  private static final Set<String> RESPONSES_ROLES =
      Set.of("system", "developer", "user", "assistant");

  private static Optional<Rejection> responses(JsonNode body) {
    JsonNode input = body.path("input");
    if (input.isTextual() || input.isMissingNode()) {
      return Optional.empty();
    }
    if (!input.isArray()) {
      return reject("Invalid type for 'input': expected a string or an array.", "input");
    }
    Map<String, String> pending = new LinkedHashMap<>(); // call_id -> the call's type
    Map<String, String> answered = new HashMap<>();
    Map<String, String> localShellCalls = new HashMap<>(); // id and call_id -> call_id
    for (int i = 0; i < input.size(); i++) {
      JsonNode item = input.get(i);
      String type = item.path("type").asText(item.has("role") ? "message" : "");
      Optional<Rejection> missing = missingResponsesField(item, type, i);
      if (missing.isPresent()) {
        return missing;
      }
      Optional<Rejection> badOutput = badResponsesOutput(item, type, i);
      if (badOutput.isPresent()) {
        return badOutput;
      }
      if (type.equals("reasoning") && !followedByOutput(input, i)) {
        return reject(
            "Item '"
                + item.path("id").asText("input[" + i + "]")
                + "' of type 'reasoning' was provided without its required following item.",
            "input");
      }
      switch (type) {
        case "message" -> {
          String role = item.path("role").asText("");
          if (!RESPONSES_ROLES.contains(role)) {
            return reject(
                "Invalid value: '"
                    + role
                    + "'. Supported values are: 'assistant', 'system', 'developer', and 'user'.",
                "input[" + i + "].role");
          }
          if (!pending.isEmpty()) {
            return noOutput(pending);
          }
        }
        case "function_call", "computer_call", "custom_tool_call" ->
            pending.put(item.path("call_id").asText(), type);
        case "local_shell_call" -> {
          String callId = item.path("call_id").asText();
          pending.put(callId, type);
          localShellCalls.put(callId, callId);
          if (item.path("id").isTextual()) {
            localShellCalls.put(item.get("id").asText(), callId);
          }
        }
        case "function_call_output",
            "computer_call_output",
            "custom_tool_call_output",
            "local_shell_call_output" -> {
          String id =
              type.equals("local_shell_call_output")
                  ? localShellCalls.getOrDefault(item.path("id").asText(), "")
                  : item.path("call_id").asText();
          String call = pending.containsKey(id) ? pending.remove(id) : answered.get(id);
          // an output answers a call of its own kind: a function_call_output no computer_call
          if (call == null || !type.equals(call + "_output")) {
            String which = type.equals("local_shell_call_output") ? "id" : "call_id";
            return reject(
                "No tool call found for "
                    + type.replace("_call_output", " call output").replace('_', ' ')
                    + " with "
                    + which
                    + " "
                    + item.path(which).asText()
                    + ".",
                "input");
          }
          answered.put(id, call);
        }
        default -> {
          // reasoning, compaction and other items carry no pairing rule
        }
      }
    }
    if (!pending.isEmpty()) {
      return noOutput(pending);
    }
    return Optional.empty();
  }

  private static Optional<Rejection> noOutput(Map<String, String> pending) {
    Map.Entry<String, String> first = pending.entrySet().iterator().next();
    String kind = first.getValue().equals("function_call") ? "function call" : first.getValue();
    return reject("No tool output found for " + kind + " " + first.getKey() + ".", "input");
  }

  /** The fields each Responses input item must have, with OpenAI's message for a missing one. */
  private static Optional<Rejection> missingResponsesField(JsonNode item, String type, int i) {
    List<String> required =
        switch (type) {
          case "message" -> List.of("role", "content");
          case "function_call" -> List.of("call_id", "name", "arguments");
          case "function_call_output", "computer_call_output" -> List.of("call_id", "output");
          case "computer_call", "local_shell_call" -> List.of("call_id", "action");
          case "custom_tool_call" -> List.of("call_id", "name", "input");
          case "custom_tool_call_output" -> List.of("call_id", "output");
          case "local_shell_call_output" -> List.of("id", "output");
          default -> List.of();
        };
    for (String field : required) {
      if (!item.hasNonNull(field)) {
        return reject(
            "Missing required parameter: 'input[" + i + "]." + field + "'.",
            "input[" + i + "]." + field);
      }
    }
    return Optional.empty();
  }

  /**
   * An output of the wrong shape: a {@code computer_call_output}'s is a screenshot object ({@code
   * {"type": "computer_screenshot", "image_url" | "file_id": …}}), a {@code
   * local_shell_call_output}'s a string.
   */
  private static Optional<Rejection> badResponsesOutput(JsonNode item, String type, int i) {
    JsonNode output = item.path("output");
    String param = "input[" + i + "].output";
    if (type.equals("computer_call_output")) {
      if (!output.isObject()) {
        return reject(
            "Invalid type for '"
                + param
                + "': expected an object, but got "
                + article(output)
                + " instead.",
            param);
      }
      if (!output.path("type").asText().equals("computer_screenshot")) {
        return reject(
            "Invalid value: '"
                + output.path("type").asText()
                + "'. Supported values are: 'computer_screenshot'.",
            param + ".type");
      }
      if (!output.path("image_url").isTextual() && !output.path("file_id").isTextual()) {
        return reject("Missing required parameter: '" + param + ".image_url'.", param);
      }
    } else if (type.equals("local_shell_call_output") && !output.isTextual()) {
      return reject(
          "Invalid type for '"
              + param
              + "': expected a string, but got "
              + article(output)
              + " instead.",
          param);
    }
    return Optional.empty();
  }

  private static String article(JsonNode v) {
    return v.isTextual()
        ? "a string"
        : v.isArray()
            ? "an array"
            : v.isObject() ? "an object" : v.isNumber() ? "a number" : "null";
  }

  /** Whether the item after a reasoning item is one the model produced with it. */
  private static boolean followedByOutput(JsonNode input, int i) {
    if (i + 1 >= input.size()) {
      return false;
    }
    JsonNode next = input.get(i + 1);
    String type = next.path("type").asText(next.has("role") ? "message" : "");
    if (type.equals("message")) {
      return next.path("role").asText().equals("assistant");
    }
    return !type.equals("reasoning") && !type.endsWith("_output");
  }

  // ------------------------------------------------------------------ Anthropic

  private static Optional<Rejection> anthropic(JsonNode body) {
    if (!body.path("max_tokens").canConvertToInt()) {
      return reject("max_tokens: Field required", "max_tokens");
    }
    JsonNode messages = body.path("messages");
    if (!messages.isArray()) {
      return reject("messages: Field required", "messages");
    }
    if (messages.isEmpty()) {
      return reject("messages: at least one message is required", "messages");
    }
    List<String> previousCalls = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      String role = m.path("role").asText("");
      if (role.equals("system")) {
        return reject(
            "messages: Unexpected role \"system\". The Messages API accepts a top-level `system`"
                + " parameter, not \"system\" as an input message role.",
            "messages");
      }
      if (!role.equals("user") && !role.equals("assistant")) {
        return reject("messages." + i + ".role: Input should be 'user' or 'assistant'", "messages");
      }
      if (i == 0 && !role.equals("user")) {
        return reject("messages: first message must use the \"user\" role", "messages");
      }
      // Consecutive turns of one role are accepted: the Messages API combines them into a single
      // turn. The tool checks below still look at each message as sent: a call's results must be
      // in the very next message, not in a later one of the same role.
      List<JsonNode> blocks = new ArrayList<>();
      m.path("content").forEach(blocks::add);
      Set<String> results = new LinkedHashSet<>();
      for (int j = 0; j < blocks.size(); j++) {
        JsonNode b = blocks.get(j);
        if ("tool_result".equals(b.path("type").asText())) {
          String id = b.path("tool_use_id").asText();
          if (role.equals("assistant") || !previousCalls.contains(id)) {
            return reject(
                "messages."
                    + i
                    + ".content."
                    + j
                    + ": unexpected `tool_use_id` found in `tool_result` blocks: "
                    + id
                    + ". Each `tool_result` block must have a corresponding `tool_use` block in"
                    + " the previous message.",
                "messages");
          }
          results.add(id);
        }
      }
      if (!previousCalls.isEmpty()) {
        List<String> missing = new ArrayList<>(previousCalls);
        missing.removeAll(results);
        if (!missing.isEmpty()) {
          return unansweredAnthropicCalls(i - 1, missing);
        }
      }
      previousCalls = new ArrayList<>();
      if (role.equals("assistant")) {
        for (JsonNode b : blocks) {
          if ("tool_use".equals(b.path("type").asText())) {
            previousCalls.add(b.path("id").asText());
          }
        }
      }
    }
    if (!previousCalls.isEmpty()) {
      return unansweredAnthropicCalls(messages.size() - 1, previousCalls);
    }
    int breakpoints = countCacheControl(body);
    if (breakpoints > MAX_CACHE_CONTROL) {
      return reject(
          "A maximum of "
              + MAX_CACHE_CONTROL
              + " blocks with cache_control may be provided. Found "
              + breakpoints
              + ".",
          null);
    }
    return Optional.empty();
  }

  private static Optional<Rejection> unansweredAnthropicCalls(int index, List<String> ids) {
    return reject(
        "messages."
            + index
            + ": `tool_use` ids were found without `tool_result` blocks immediately after: "
            + String.join(", ", ids)
            + ". Each `tool_use` block must have a corresponding `tool_result` block in the next"
            + " message.",
        "messages");
  }

  /** Objects carrying {@code cache_control} anywhere in the body (system, messages, tools). */
  static int countCacheControl(JsonNode node) {
    int n = 0;
    if (node.isObject() && node.has("cache_control") && !node.get("cache_control").isNull()) {
      n++;
    }
    for (JsonNode child : node) {
      n += countCacheControl(child);
    }
    return n;
  }

  private static Optional<Rejection> reject(String message, String param) {
    return Optional.of(new Rejection(message, param));
  }
}
