package dev.compactor.server.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.server.proxy.WireApi.Unreadable;
import dev.compactor.wire.Unchanged;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * OpenAI Responses requests ({@code POST /v1/responses}) as the proxy reads and rewrites them.
 *
 * <p><b>Items.</b> The client's items are the {@code instructions} (as a leading {@code
 * {"instructions": …}} item, when the body has them), then the {@code input} items ({@code input}
 * given as a string is one user item).
 *
 * <p><b>Units.</b> Items are read in units, each one core message: a {@code message} item of a
 * {@code user}, {@code system} or {@code developer} role; a tool result (any {@code *_call_output}
 * item with a {@code call_id}: {@code function_call_output}, {@code custom_tool_call_output},
 * {@code computer_call_output}, …; and {@code local_shell_call_output}, which answers its {@code
 * local_shell_call} by the call's {@code id}); and the assistant's side, a run of consecutive items
 * of every other kind ({@code reasoning}, assistant {@code message}, {@code function_call} and any
 * {@code *_call} item with a {@code call_id} as a tool call, built-in tool items, unknown types).
 * An item the proxy does not model — a {@code reasoning} item with its {@code encrypted_content},
 * an unknown type — therefore travels with the assistant message around it: kept verbatim while
 * that message is, dropped with it by a trim. A unit whose message the compaction left unchanged is
 * sent as the client's items, byte for byte; a changed one is rewritten from the message (a tool
 * result keeps its item, with the new {@code output}, except a structured one such as a {@code
 * computer_call_output}'s screenshot, read as the text {@code [computer_screenshot]} and always
 * sent as the client's item; a changed assistant message loses its reasoning items, whose following
 * item they may no longer match).
 *
 * <p><b>Reply.</b> The provider's reply is the {@code output} array of the response (the client
 * echoes its items in the next request's {@code input}). Stateless.
 */
final class ResponsesRequests {
  /** A local shell call's output: it answers its call by the call's {@code id}, no call_id. */
  private static final String LOCAL_SHELL_OUTPUT = "local_shell_call_output";

  private ResponsesRequests() {}

  /** What a unit of items is. */
  enum Kind {
    INSTRUCTIONS,
    MESSAGE,
    ASSISTANT,
    RESULT
  }

  /** Consecutive items read as one message (id {@code msg-<first>}). */
  record Unit(Kind kind, int first, List<Integer> indices, Message message) {}

  /**
   * Why a request is left to the provider, or null when the proxy may compact it: a request that
   * depends on state stored at the provider ({@code previous_response_id}, {@code conversation},
   * {@code item_reference} items), or that asks for the provider's own compaction ({@code
   * context_management}, {@code compaction} and {@code compaction_trigger} items).
   */
  static String passthroughReason(JsonNode body) {
    if (present(body, "previous_response_id")) {
      return "a stateful request (previous_response_id)";
    }
    if (present(body, "conversation")) {
      return "a stateful request (conversation)";
    }
    if (present(body, "context_management")) {
      return "provider-side compaction (context_management)";
    }
    JsonNode input = body.get("input");
    if (input != null && input.isArray()) {
      for (JsonNode item : input) {
        String type = item.path("type").asText("");
        switch (type) {
          case "item_reference" -> {
            return "a stateful request (item_reference to stored items)";
          }
          case "compaction", "compaction_trigger" -> {
            return "provider-side compaction (a " + type + " item in input)";
          }
          default -> {
            // an item the proxy reads, or carries verbatim
          }
        }
      }
    }
    return null;
  }

  private static boolean present(JsonNode body, String field) {
    JsonNode v = body.get(field);
    return v != null && !v.isNull();
  }

  /** The client's items of a request body. */
  static List<JsonNode> items(JsonNode body) throws Unreadable {
    if (body == null || !body.isObject()) {
      throw new Unreadable("the body is not a JSON object");
    }
    List<JsonNode> out = new ArrayList<>();
    JsonNode instructions = body.get("instructions");
    if (instructions != null && !instructions.isNull()) {
      if (!instructions.isTextual()) {
        throw new Unreadable("instructions is not a string");
      }
      out.add(Json.object().set("instructions", instructions));
    }
    JsonNode input = body.get("input");
    if (input != null && input.isTextual()) {
      out.add(Json.object().put("role", "user").put("content", input.asText()));
      return out;
    }
    if (input == null || !input.isArray() || input.isEmpty()) {
      throw new Unreadable("the body has no input (a string or a non-empty array of items)");
    }
    for (int i = 0; i < input.size(); i++) {
      JsonNode item = input.get(i);
      if (!item.isObject()) {
        throw new Unreadable("input[" + i + "] is not an object");
      }
      out.add(item);
    }
    return out;
  }

  static boolean isInstructions(JsonNode item) {
    return item.isObject() && item.size() == 1 && item.has("instructions");
  }

  /** {@code original} with its {@code instructions} and {@code input} replaced by {@code items}. */
  static ObjectNode body(JsonNode original, List<JsonNode> items) {
    ObjectNode copy = ((ObjectNode) original).deepCopy();
    int from = 0;
    if (!items.isEmpty() && isInstructions(items.get(0))) {
      copy.set("instructions", items.get(0).get("instructions"));
      from = 1;
    } else {
      copy.remove("instructions");
    }
    ArrayNode input = Json.array();
    items.subList(from, items.size()).forEach(input::add);
    copy.set("input", input);
    return copy;
  }

  // ------------------------------------------------------------------ reading

  private static String type(JsonNode item) {
    String t = Json.scalar(item, "type");
    return t == null && item.has("role") ? "message" : t == null ? "" : t;
  }

  private static boolean isCall(JsonNode item, String type) {
    return type.endsWith("_call") && item.path("call_id").isTextual();
  }

  private static boolean isResult(String type) {
    return type.endsWith("_call_output");
  }

  private static boolean hasText(JsonNode item, String field) {
    return item.path(field).isTextual() && !item.get(field).asText().isBlank();
  }

  /**
   * The call a tool result answers: its {@code call_id}; for a {@code local_shell_call_output}
   * without one, the {@code call_id} of the {@code local_shell_call} before it whose {@code id} (or
   * {@code call_id}) is the output's {@code id}.
   */
  private static String answers(JsonNode item, int i, Map<String, String> localShellCalls)
      throws Unreadable {
    if (hasText(item, "call_id")) {
      return item.get("call_id").asText();
    }
    String id = item.get("id").asText();
    String call = localShellCalls.get(id);
    if (call == null) {
      throw new Unreadable(
          "input item " + i + " (" + LOCAL_SHELL_OUTPUT + " " + id + ") answers no call before it");
    }
    return call;
  }

  /** Notes a {@code local_shell_call}, under its {@code id} and its {@code call_id}. */
  private static void noteLocalShellCall(JsonNode item, Map<String, String> localShellCalls) {
    if (type(item).equals("local_shell_call") && hasText(item, "call_id")) {
      String callId = item.get("call_id").asText();
      localShellCalls.put(callId, callId);
      if (hasText(item, "id")) {
        localShellCalls.put(item.get("id").asText(), callId);
      }
    }
  }

  /** The kind of unit an item belongs to. */
  private static Kind kindOf(JsonNode item, int i) throws Unreadable {
    if (isInstructions(item)) {
      return Kind.INSTRUCTIONS;
    }
    String type = type(item);
    if (type.equals("message")) {
      String role = Json.scalar(item, "role");
      if (role == null) {
        throw new Unreadable("input item " + i + " is a message without a role");
      }
      return switch (role) {
        case "assistant" -> Kind.ASSISTANT;
        case "user", "system", "developer" -> Kind.MESSAGE;
        default -> throw new Unreadable("input item " + i + " has an unknown role: " + role);
      };
    }
    if (isResult(type)) {
      if (!hasText(item, "call_id") && !(type.equals(LOCAL_SHELL_OUTPUT) && hasText(item, "id"))) {
        throw new Unreadable("input item " + i + " (" + type + ") has no call_id");
      }
      return Kind.RESULT;
    }
    return Kind.ASSISTANT;
  }

  /** The units of the items, in order. */
  static List<Unit> units(List<JsonNode> items) throws Unreadable {
    List<Unit> out = new ArrayList<>();
    Map<String, String> localShellCalls = new HashMap<>();
    int i = 0;
    while (i < items.size()) {
      JsonNode item = items.get(i);
      Kind kind = kindOf(item, i);
      String id = "msg-" + i;
      switch (kind) {
        case INSTRUCTIONS -> {
          out.add(
              new Unit(
                  kind,
                  i,
                  List.of(i),
                  Message.builder(Role.SYSTEM)
                      .id(id)
                      .content(item.get("instructions").asText())
                      .build()));
          i++;
        }
        case MESSAGE -> {
          Role role = item.path("role").asText().equals("user") ? Role.USER : Role.SYSTEM;
          out.add(
              new Unit(
                  kind,
                  i,
                  List.of(i),
                  Message.builder(role)
                      .id(id)
                      .content(ChatCompletionsMessages.responseText(item.get("content")))
                      .build()));
          i++;
        }
        case RESULT -> {
          out.add(
              new Unit(
                  kind,
                  i,
                  List.of(i),
                  Message.builder(Role.TOOL)
                      .id(id)
                      .toolCallId(answers(item, i, localShellCalls))
                      .content(outputText(item.get("output")))
                      .build()));
          i++;
        }
        case ASSISTANT -> {
          int first = i;
          List<Integer> indices = new ArrayList<>();
          while (i < items.size() && kindOf(items.get(i), i) == Kind.ASSISTANT) {
            noteLocalShellCall(items.get(i), localShellCalls);
            indices.add(i);
            i++;
          }
          out.add(new Unit(kind, first, List.copyOf(indices), assistant(id, items, indices)));
        }
      }
    }
    return out;
  }

  private static Message assistant(String id, List<JsonNode> items, List<Integer> indices) {
    StringBuilder text = new StringBuilder();
    List<ToolCall> calls = new ArrayList<>();
    for (int i : indices) {
      JsonNode item = items.get(i);
      String type = type(item);
      if (type.equals("message")) {
        String t = ChatCompletionsMessages.responseText(item.get("content"));
        if (!t.isEmpty()) {
          if (text.length() > 0) {
            text.append("\n\n");
          }
          text.append(t);
        }
      } else if (isCall(item, type)) {
        calls.add(toolCall(item, type));
      }
    }
    return Message.builder(Role.ASSISTANT).id(id).content(text.toString()).toolCalls(calls).build();
  }

  private static ToolCall toolCall(JsonNode item, String type) {
    String name = Json.scalar(item, "name");
    String arguments;
    if (type.equals("function_call")) {
      arguments = ChatCompletionsMessages.arguments(item.get("arguments"));
    } else if (item.path("input").isTextual()) {
      arguments = item.get("input").asText();
    } else {
      JsonNode action = item.has("action") ? item.get("action") : item.get("arguments");
      arguments = action == null || action.isNull() ? "" : Json.write(action);
    }
    return new ToolCall(item.get("call_id").asText(), name == null ? type : name, arguments);
  }

  private static String outputText(JsonNode output) {
    if (output == null || output.isNull()) {
      return "";
    }
    if (output.isTextual() || output.isArray()) {
      return ChatCompletionsMessages.responseText(output);
    }
    if (isScreenshot(output)) {
      // an image: its bytes are no text to count, mask or summarize
      String file = Json.scalar(output, "file_id");
      return file == null ? "[computer_screenshot]" : "[computer_screenshot " + file + "]";
    }
    return Json.write(output);
  }

  /** A {@code computer_call_output}'s screenshot object ({@code image_url} or {@code file_id}). */
  private static boolean isScreenshot(JsonNode output) {
    return output != null
        && output.isObject()
        && "computer_screenshot".equals(Json.scalar(output, "type"));
  }

  /** The core messages of the items, one per unit. */
  static List<Message> decode(List<JsonNode> items) throws Unreadable {
    return units(items).stream().map(Unit::message).toList();
  }

  // ------------------------------------------------------------------ writing

  /**
   * The items to send for a compacted view of the messages decoded from {@code items}.
   *
   * @throws IllegalArgumentException when a message of the view cannot be written
   */
  static List<JsonNode> encode(List<Message> view, List<JsonNode> items) {
    Map<String, Unit> byId = new HashMap<>();
    Map<String, Unit> resultByCall = new HashMap<>();
    try {
      for (Unit u : units(items)) {
        byId.put(u.message().id().toString(), u);
        if (u.kind() == Kind.RESULT) {
          resultByCall.putIfAbsent(u.message().toolCallId(), u);
        }
      }
    } catch (Unreadable e) {
      throw new IllegalArgumentException("the items are not readable: " + e.getMessage(), e);
    }
    List<JsonNode> out = new ArrayList<>();
    for (Message m : view) {
      Unit u = byId.get(m.id().toString());
      if (u != null && Unchanged.onTheWire(m, u.message())) {
        u.indices().forEach(i -> out.add(items.get(i).deepCopy()));
        continue;
      }
      switch (m.role()) {
        case SYSTEM -> {
          if (out.isEmpty() && (u == null || u.kind() == Kind.INSTRUCTIONS)) {
            out.add(Json.object().put("instructions", m.content()));
          } else if (u != null && u.kind() == Kind.MESSAGE) {
            out.add(((ObjectNode) items.get(u.first()).deepCopy()).put("content", m.content()));
          } else {
            out.add(Json.object().put("role", "system").put("content", m.content()));
          }
        }
        case USER -> {
          if (u != null && u.kind() == Kind.MESSAGE) {
            out.add(((ObjectNode) items.get(u.first()).deepCopy()).put("content", m.content()));
          } else {
            out.add(Json.object().put("role", "user").put("content", m.content()));
          }
        }
        case TOOL -> {
          if (m.toolCallId() == null) {
            throw new IllegalArgumentException(
                "message " + m.id() + ": a tool result needs the toolCallId of its call");
          }
          // a masked result has an id of its own: its item is the client's result for its call
          Unit result = u != null && u.kind() == Kind.RESULT ? u : resultByCall.get(m.toolCallId());
          if (result != null) {
            JsonNode item = items.get(result.first());
            JsonNode output = item.get("output");
            if (output != null && output.isObject()) {
              // a screenshot (or another structured output) has no text form the provider would
              // accept: the client's item, as it came
              out.add(item.deepCopy());
            } else {
              out.add(((ObjectNode) item.deepCopy()).put("output", m.content()));
            }
          } else {
            out.add(
                Json.object()
                    .put("type", "function_call_output")
                    .put("call_id", m.toolCallId())
                    .put("output", m.content()));
          }
        }
        case ASSISTANT ->
            encodeAssistant(m, u != null && u.kind() == Kind.ASSISTANT ? u : null, items, out);
      }
    }
    return out;
  }

  /** A changed (or new) assistant message: its text, then its calls, with what can be kept. */
  private static void encodeAssistant(
      Message m, Unit source, List<JsonNode> items, List<JsonNode> out) {
    if (!m.content().isEmpty()) {
      out.add(Json.object().put("role", "assistant").put("content", m.content()));
    }
    List<ToolCall> calls = new ArrayList<>(m.toolCalls());
    if (source != null) {
      for (int i : source.indices()) {
        JsonNode item = items.get(i);
        String type = type(item);
        if (isCall(item, type)) {
          ToolCall was = toolCall(item, type);
          ToolCall now =
              calls.stream().filter(c -> c.id().equals(was.id())).findFirst().orElse(null);
          if (now == null) {
            continue;
          }
          calls.remove(now);
          if (now.equals(was)) {
            out.add(item.deepCopy());
          } else {
            ObjectNode changed = (ObjectNode) item.deepCopy();
            changed.put("name", now.name());
            changed.put(type.equals("function_call") ? "arguments" : "input", now.arguments());
            out.add(changed);
          }
        } else if (!type.equals("message") && !type.equals("reasoning")) {
          out.add(item.deepCopy()); // a built-in tool item or an unknown one, verbatim
        }
      }
    }
    for (ToolCall c : calls) {
      out.add(
          Json.object()
              .put("type", "function_call")
              .put("call_id", c.id())
              .put("name", c.name())
              .put("arguments", c.arguments()));
    }
  }

  // ------------------------------------------------------------------ the reply

  /** The {@code output} items of a response body, or null. */
  static JsonNode replyOf(JsonNode response) {
    if (response == null || !response.isObject()) {
      return null;
    }
    JsonNode output = response.get("output");
    return output != null && output.isArray() && !output.isEmpty() ? output : null;
  }

  /**
   * Whether {@code item} (the request's item after the stored prefix) is the echo of the stored
   * reply's first item; a client that does not send reasoning items back is matched on the first
   * item of another kind.
   */
  static boolean sameMessage(JsonNode reply, JsonNode item) {
    if (reply == null || !reply.isArray() || item == null || !item.isObject()) {
      return false;
    }
    boolean reasoning = type(item).equals("reasoning");
    for (JsonNode r : reply) {
      if (!reasoning && type(r).equals("reasoning")) {
        continue;
      }
      return sameItem(r, item);
    }
    return false;
  }

  private static boolean sameItem(JsonNode a, JsonNode b) {
    String type = type(a);
    if (!type.equals(type(b))) {
      return false;
    }
    if (a.path("id").isTextual() && b.path("id").isTextual()) {
      return a.get("id").asText().equals(b.get("id").asText());
    }
    try {
      if (type.equals("reasoning")) {
        // clients drop or add ids and empty fields: the opaque content, else the summary, decides
        if (a.path("encrypted_content").isTextual() && b.path("encrypted_content").isTextual()) {
          return a.get("encrypted_content").equals(b.get("encrypted_content"));
        }
        return ItemDigests.canonical(a.path("summary"))
            .equals(ItemDigests.canonical(b.path("summary")));
      }
      if (kindOf(a, 0) == Kind.ASSISTANT && !type.equals("message") && !isCall(a, type)) {
        // an item the proxy does not model: the same when all but its id and status are
        return ItemDigests.canonical(strip(a)).equals(ItemDigests.canonical(strip(b)));
      }
      return Unchanged.onTheWire(decode(List.of(a)), decode(List.of(b)));
    } catch (Unreadable | RuntimeException e) {
      return false;
    }
  }

  private static JsonNode strip(JsonNode item) {
    ObjectNode o = ((ObjectNode) item).deepCopy();
    o.remove("id");
    o.remove("status");
    return o;
  }
}
