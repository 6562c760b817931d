package dev.compactor.wire.openai;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.wire.Unchanged;
import dev.compactor.wire.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * OpenAI Responses input items, both directions.
 *
 * <p><b>Writing</b> ({@link #encode}): the leading system messages become {@code instructions};
 * then system and user messages become {@code {"role", "content"}} items, an assistant message its
 * OpenAI compaction items (verbatim), a {@code {"role": "assistant", "content"}} item when it has
 * text and one {@code function_call} item per tool call; a tool result becomes a {@code
 * function_call_output}.
 *
 * <p><b>Reading</b> ({@link #decode}): {@code message} items (also typeless items with a {@code
 * role}; {@code developer} is system), {@code function_call}, {@code function_call_output} and
 * {@code compaction} items (kept verbatim as compaction items of an assistant message); reasoning
 * and built-in tool items are not carried. Stateless.
 */
public final class ResponsesItems {
  private ResponsesItems() {}

  /** The provider name of compaction items this format carries. */
  public static final String PROVIDER = "openai";

  /**
   * The leading system messages (joined by a blank line; null when none) and the input items.
   *
   * @param instructions the {@code instructions} field, or null
   * @param items the {@code input} array
   */
  public record Input(String instructions, ArrayNode items) {}

  /**
   * The input of {@code sendable} (messages already filtered to those a model sees).
   *
   * @throws IllegalArgumentException when a tool result has no {@code toolCallId}
   */
  public static Input encode(List<Message> sendable) {
    StringBuilder instructions = new StringBuilder();
    int i = 0;
    while (i < sendable.size() && sendable.get(i).role() == Role.SYSTEM) {
      if (!sendable.get(i).content().isEmpty()) {
        if (instructions.length() > 0) {
          instructions.append("\n\n");
        }
        instructions.append(sendable.get(i).content());
      }
      i++;
    }
    ArrayNode items = Json.array();
    for (; i < sendable.size(); i++) {
      Message m = sendable.get(i);
      switch (m.role()) {
        case SYSTEM, USER ->
            items.addObject().put("role", m.role().wireName()).put("content", m.content());
        case TOOL -> {
          if (m.toolCallId() == null) {
            throw new IllegalArgumentException(
                "message " + m.id() + ": a tool result needs the toolCallId of its call");
          }
          items
              .addObject()
              .put("type", "function_call_output")
              .put("call_id", m.toolCallId())
              .put("output", m.content());
        }
        case ASSISTANT -> {
          for (CompactionItem c : ProviderCompaction.itemsOf(m)) {
            if (PROVIDER.equals(c.provider())) {
              items.add(Json.tree(c.raw()));
            }
          }
          if (!m.content().isEmpty()) {
            items.addObject().put("role", "assistant").put("content", m.content());
          }
          for (ToolCall c : m.toolCalls()) {
            items
                .addObject()
                .put("type", "function_call")
                .put("call_id", c.id())
                .put("name", c.name())
                .put("arguments", c.arguments());
          }
        }
      }
    }
    return new Input(instructions.length() == 0 ? null : instructions.toString(), items);
  }

  /**
   * The messages of an input (or compacted output) array: one per message, function call and
   * function call output item, and an assistant message carrying each compaction item.
   *
   * @param provider provider name set on assistant messages
   * @param model model name set on assistant messages
   */
  public static List<Message> decode(JsonNode items, String provider, String model) {
    List<Message> out = new ArrayList<>();
    if (items == null || !items.isArray()) {
      return out;
    }
    for (JsonNode item : items) {
      String type = Json.scalar(item, "type");
      if (type == null && item.has("role")) {
        type = "message";
      }
      if (type == null) {
        continue;
      }
      switch (type) {
        case "message" -> {
          String r = Json.scalar(item, "role");
          Role role = "developer".equals(r) ? Role.SYSTEM : Role.parse(r);
          out.add(
              Message.builder(role)
                  .content(ChatCompletionsMessages.responseText(item.get("content")))
                  .metadata(
                      new MessageMetadata(
                          role == Role.ASSISTANT ? model : null,
                          role == Role.ASSISTANT ? provider : null,
                          null,
                          null,
                          Map.of()))
                  .build());
        }
        case "function_call" ->
            out.add(
                Message.assistant(
                    "",
                    List.of(
                        new ToolCall(
                            Json.scalar(item, "call_id"),
                            Json.scalar(item, "name"),
                            ChatCompletionsMessages.arguments(item.get("arguments"))))));
        case "function_call_output" ->
            out.add(
                Message.toolResult(
                    Json.scalar(item, "call_id"),
                    ChatCompletionsMessages.responseText(item.get("output"))));
        case "compaction" ->
            out.add(
                Message.builder(Role.ASSISTANT)
                    .metadata(
                        ProviderCompaction.withItems(
                            new MessageMetadata(model, provider, null, null, Map.of()),
                            List.of(compactionItem(item))))
                    .build());
        default -> {
          // reasoning and built-in tool items are not carried
        }
      }
    }
    return out;
  }

  /**
   * The items to send for {@code m}, the message decoded from the input item {@code source}: that
   * item itself, unchanged, when decoding it alone gives a message that says the same ({@link
   * Unchanged#onTheWire}); otherwise what {@link #encode} writes for {@code m} (a system message
   * becomes a system item here, not {@code instructions}).
   *
   * @param source the request's item, or null when {@code m} has no source
   */
  public static ArrayNode reencode(Message m, JsonNode source) {
    if (source != null && source.isObject()) {
      List<Message> again = decode(Json.array().add(source), null, null);
      if (again.size() == 1 && Unchanged.onTheWire(m, again.get(0))) {
        return Json.array().add(source.deepCopy());
      }
    }
    if (m.role() == Role.SYSTEM) {
      ArrayNode items = Json.array();
      items.addObject().put("role", "system").put("content", m.content());
      return items;
    }
    return encode(List.of(m)).items();
  }

  /** A {@code compaction} item, kept verbatim. */
  public static CompactionItem compactionItem(JsonNode item) {
    return new CompactionItem(PROVIDER, Json.plainObject(item));
  }
}
