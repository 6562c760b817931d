package dev.compactor.wire.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.wire.Unchanged;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.usage.Usages;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Anthropic Messages request messages, both directions: {@link #decode} reads a request body
 * (content blocks by {@link AnthropicContent}), {@link #encode} writes one from {@link Message}s.
 *
 * <p>System messages are joined (by a blank line) into {@code system}. Consecutive messages of one
 * side form one turn: a user message gives a {@code text} block, a tool result a {@code
 * tool_result} block (tool results open their user turn), an assistant message its Anthropic
 * compaction blocks (verbatim), its signed {@code thinking} and {@code redacted_thinking} blocks, a
 * {@code text} block and one {@code tool_use} block per call (arguments must be a JSON object). The
 * first turn must be the user's: when it is not, a user turn with {@code leadingUserText} is put
 * first. Stateless.
 */
public final class AnthropicMessages {
  private AnthropicMessages() {}

  /** The provider name of compaction blocks this format carries. */
  public static final String PROVIDER = "anthropic";

  /** One turn being built: a role and its content blocks. */
  private record Turn(String role, List<ObjectNode> blocks) {}

  /**
   * The {@code system} text and the {@code messages} array.
   *
   * @param system the joined system messages, or null when none
   * @param messages the {@code messages} array
   */
  public record Conversation(String system, ArrayNode messages) {}

  /**
   * What {@link #decode} read.
   *
   * @param messages the messages, in order
   * @param skipped entries that are not messages ({@code messages[i] has no role})
   */
  public record Decoded(List<Message> messages, List<String> skipped) {
    public Decoded {
      messages = List.copyOf(messages);
      skipped = List.copyOf(skipped);
    }
  }

  private static final Set<String> MESSAGE_FIELDS = Set.of("role", "content", "usage", "model");

  /**
   * Reads a request body {@code {"system", "messages": [...]}} or a bare message array.
   *
   * <p>{@code system} (a string or text blocks) becomes the first, system message (id {@code
   * system}; blocks kept whole in {@code metadata.extra.system}). An assistant message's blocks are
   * read by {@link AnthropicContent#addAssistant}; blocks it has no place for are kept in {@code
   * metadata.extra.content_blocks}. A user message's {@code tool_result} blocks become tool
   * messages ({@code msg-<i>-result-<k>}), in block order; the user message's remaining text
   * follows them as a user message ({@code msg-<i>}). Messages that carry {@code usage} (response
   * objects) get typed usage, model and provider {@code anthropic}. Other fields are kept in {@code
   * metadata.extra} under their own names. The body's other fields (model, tools, max_tokens, …)
   * are not read here.
   */
  public static Decoded decode(JsonNode root) {
    JsonNode messages = root.isArray() ? root : root.path("messages");
    List<Message> out = new ArrayList<>();
    if (root.isObject()) {
      JsonNode system = root.get("system");
      if (system != null && !system.isNull()) {
        AnthropicContent.UserParts parts = new AnthropicContent.UserParts();
        AnthropicContent.addUser(system, parts);
        Map<String, Object> extra = new LinkedHashMap<>();
        if (!parts.otherBlocks.isEmpty() || system.isArray()) {
          extra.put("system", Json.plain(system));
        }
        out.add(
            Message.builder(Role.SYSTEM)
                .id("system")
                .content(parts.text())
                .metadata(new MessageMetadata(null, null, null, null, extra))
                .build());
      }
    }
    List<String> skipped = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      String role = Json.text(m, "role");
      if (role == null) {
        skipped.add("messages[" + i + "] has no role");
        continue;
      }
      Map<String, Object> extra = Json.rest(m, MESSAGE_FIELDS);
      if (role.equals("assistant")) {
        AnthropicContent.AssistantParts parts = new AnthropicContent.AssistantParts();
        AnthropicContent.addAssistant(m.get("content"), parts);
        if (!parts.otherBlocks.isEmpty()) {
          extra.put("content_blocks", parts.otherBlocks);
        }
        Usage usage = Usages.parse(m.get("usage"));
        String model = Json.text(m, "model");
        if (usage != null) {
          extra.put("usage", Json.plain(m.get("usage")));
        }
        out.add(
            Message.builder(Role.ASSISTANT)
                .id("msg-" + i)
                .content(parts.text())
                .reasoning(parts.reasoning)
                .toolCalls(parts.calls)
                .metadata(
                    new MessageMetadata(
                        model,
                        usage != null || model != null ? "anthropic" : null,
                        usage,
                        null,
                        extra))
                .build());
      } else {
        AnthropicContent.UserParts parts = new AnthropicContent.UserParts();
        AnthropicContent.addUser(m.get("content"), parts);
        int k = 0;
        for (JsonNode r : parts.toolResults) {
          List<Object> nonText = new ArrayList<>();
          String text = AnthropicContent.toolResultText(r, nonText);
          Map<String, Object> rextra = Json.rest(r, AnthropicContent.TOOL_RESULT_FIELDS);
          if (!nonText.isEmpty()) {
            rextra.put("content", nonText.get(0));
          }
          out.add(
              Message.builder(Role.TOOL)
                  .id("msg-" + i + "-result-" + k++)
                  .toolCallId(Json.text(r, "tool_use_id"))
                  .content(text)
                  .metadata(new MessageMetadata(null, null, null, null, rextra))
                  .build());
        }
        boolean system = role.equals("system");
        if (!parts.texts.isEmpty() || !parts.otherBlocks.isEmpty() || parts.toolResults.isEmpty()) {
          if (!parts.otherBlocks.isEmpty()) {
            extra.put("content_blocks", parts.otherBlocks);
          }
          out.add(
              Message.builder(system ? Role.SYSTEM : Role.USER)
                  .id("msg-" + i)
                  .content(parts.text())
                  .metadata(new MessageMetadata(null, null, null, null, extra))
                  .build());
        }
      }
    }
    return new Decoded(out, skipped);
  }

  /**
   * The conversation of {@code sendable} (messages already filtered to those a model sees).
   *
   * @throws IllegalArgumentException when a tool result has no {@code toolCallId}, or a tool call's
   *     arguments are not a JSON object
   */
  public static Conversation encode(List<Message> sendable, String leadingUserText) {
    StringBuilder system = new StringBuilder();
    List<Turn> turns = new ArrayList<>();
    for (Message m : sendable) {
      if (m.role() == Role.SYSTEM) {
        if (!m.content().isEmpty()) {
          if (system.length() > 0) {
            system.append("\n\n");
          }
          system.append(m.content());
        }
        continue;
      }
      List<ObjectNode> blocks = blocks(m);
      if (blocks.isEmpty()) {
        continue;
      }
      String role = m.role() == Role.ASSISTANT ? "assistant" : "user";
      if (!turns.isEmpty() && turns.get(turns.size() - 1).role().equals(role)) {
        turns.get(turns.size() - 1).blocks().addAll(blocks);
      } else {
        turns.add(new Turn(role, new ArrayList<>(blocks)));
      }
    }
    if (turns.isEmpty() || !turns.get(0).role().equals("user")) {
      turns.add(0, new Turn("user", new ArrayList<>(List.of(text(leadingUserText)))));
    }
    ArrayNode out = Json.array();
    for (Turn t : turns) {
      out.add(turnNode(t));
    }
    return new Conversation(system.length() == 0 ? null : system.toString(), out);
  }

  private static ObjectNode turnNode(Turn t) {
    ObjectNode o = Json.object().put("role", t.role());
    ArrayNode content = o.putArray("content");
    if (t.role().equals("user")) {
      // tool results must open the user turn that answers the calls
      t.blocks().stream()
          .filter(b -> "tool_result".equals(b.path("type").asText()))
          .forEach(content::add);
      t.blocks().stream()
          .filter(b -> !"tool_result".equals(b.path("type").asText()))
          .forEach(content::add);
    } else {
      t.blocks().forEach(content::add);
    }
    return o;
  }

  /**
   * The turn to send for {@code turn}, the messages decoded from the one request turn {@code
   * sourceTurn} (an assistant message; or a user turn's tool results and text), possibly changed
   * since: {@code sourceTurn} itself, unchanged, when decoding it alone gives messages that say the
   * same ({@link Unchanged#onTheWire}); otherwise the turn {@link #encode} writes for {@code turn}
   * (null when nothing of it is sent). Block fields this class does not model ({@code
   * cache_control}, {@code citations}, {@code is_error}, server tool blocks) survive as long as the
   * turn is not changed, so a forwarded request keeps its cached prefix byte for byte.
   *
   * @param sourceTurn the request's turn, or null when {@code turn} has no source
   * @throws IllegalArgumentException when {@code turn} mixes the two sides or holds a system
   *     message
   */
  public static ObjectNode reencodeTurn(List<Message> turn, JsonNode sourceTurn) {
    if (sourceTurn != null && sourceTurn.isObject()) {
      List<Message> again = decode(Json.array().add(sourceTurn)).messages();
      if (Unchanged.onTheWire(turn, again)) {
        return (ObjectNode) sourceTurn.deepCopy();
      }
    }
    String role = null;
    List<ObjectNode> blocks = new ArrayList<>();
    for (Message m : turn) {
      if (m.role() == Role.SYSTEM) {
        throw new IllegalArgumentException(
            "message " + m.id() + ": a system message is not part of a turn");
      }
      String r = m.role() == Role.ASSISTANT ? "assistant" : "user";
      if (role != null && !role.equals(r)) {
        throw new IllegalArgumentException(
            "message "
                + m.id()
                + ": one turn holds the messages of one side, not "
                + role
                + " and "
                + r);
      }
      role = r;
      blocks.addAll(blocks(m));
    }
    return blocks.isEmpty() ? null : turnNode(new Turn(role, blocks));
  }

  /**
   * The {@code system} to send for {@code system} (the message decoded from {@code sourceSystem}):
   * {@code sourceSystem} itself (a string or text blocks with their {@code cache_control}) when the
   * text is unchanged, otherwise the text as a string.
   */
  public static JsonNode reencodeSystem(Message system, JsonNode sourceSystem) {
    if (sourceSystem != null && !sourceSystem.isNull()) {
      ObjectNode body = Json.object();
      body.set("messages", Json.array());
      body.set("system", sourceSystem);
      List<Message> again = decode(body).messages();
      if (again.size() == 1 && Unchanged.onTheWire(system, again.get(0))) {
        return sourceSystem.deepCopy();
      }
    }
    return Json.NODES.textNode(system.content());
  }

  private static List<ObjectNode> blocks(Message m) {
    List<ObjectNode> blocks = new ArrayList<>();
    switch (m.role()) {
      case USER -> {
        if (!m.content().isEmpty()) {
          blocks.add(text(m.content()));
        }
      }
      case TOOL -> {
        if (m.toolCallId() == null) {
          throw new IllegalArgumentException(
              "message " + m.id() + ": a tool result needs the toolCallId of its call");
        }
        ObjectNode b = Json.object().put("type", "tool_result").put("tool_use_id", m.toolCallId());
        if (!m.content().isEmpty()) {
          b.put("content", m.content());
        }
        blocks.add(b);
      }
      case ASSISTANT -> {
        for (CompactionItem c : ProviderCompaction.itemsOf(m)) {
          if (PROVIDER.equals(c.provider())) {
            blocks.add((ObjectNode) Json.tree(c.raw()));
          }
        }
        for (ReasoningBlock r : m.reasoning()) {
          if (r.type().equals("thinking") && r.signature() != null) {
            blocks.add(
                Json.object()
                    .put("type", "thinking")
                    .put("thinking", r.text())
                    .put("signature", r.signature()));
          } else if (r.type().equals("redacted_thinking")) {
            blocks.add(Json.object().put("type", "redacted_thinking").put("data", r.text()));
          }
        }
        if (!m.content().isEmpty()) {
          blocks.add(text(m.content()));
        }
        for (ToolCall c : m.toolCalls()) {
          ObjectNode b =
              Json.object().put("type", "tool_use").put("id", c.id()).put("name", c.name());
          b.set("input", input(m, c));
          blocks.add(b);
        }
      }
      case SYSTEM -> throw new IllegalStateException("system messages are handled apart");
    }
    return blocks;
  }

  private static JsonNode input(Message m, ToolCall c) {
    if (c.arguments().isBlank()) {
      return Json.object();
    }
    JsonNode n = Json.tryParse(c.arguments());
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException(
          "message "
              + m.id()
              + ": tool call "
              + c.id()
              + " has arguments that are not a JSON object, which Anthropic requires as tool_use"
              + " input");
    }
    return n;
  }

  private static ObjectNode text(String s) {
    return Json.object().put("type", "text").put("text", s);
  }

  /** A {@code compaction} block, kept verbatim. */
  public static CompactionItem compactionItem(JsonNode block) {
    return new CompactionItem(PROVIDER, Json.plainObject(block));
  }
}
