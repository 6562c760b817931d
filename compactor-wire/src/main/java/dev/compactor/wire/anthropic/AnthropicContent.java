package dev.compactor.wire.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.ToolCall;
import dev.compactor.wire.internal.TextParts;
import dev.compactor.wire.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Anthropic Messages content blocks read from a request body (or a transcript that stores them, as
 * Claude Code does).
 *
 * <p>Assistant blocks: {@code text} → content, {@code thinking}/{@code redacted_thinking} →
 * reasoning blocks (verbatim, with signature), {@code tool_use} → a tool call whose arguments are
 * the {@code input} object as JSON. User blocks: {@code tool_result} → a tool result, {@code text}
 * → content. Any other block (images, documents, server tool blocks) is kept whole in {@code
 * metadata.extra}.
 */
public final class AnthropicContent {
  private AnthropicContent() {}

  /**
   * The {@code metadata.extra} key of an assistant message's {@code usage} object as the API sent
   * it (service tier, cache breakdown and the like). The counts are also in the typed usage field,
   * whose name on disk is {@code usage}, so the wire object cannot keep that name.
   */
  public static final String USAGE_EXTRA = "api_usage";

  /** What an assistant message's blocks become. */
  public static final class AssistantParts {
    public final List<String> texts = new ArrayList<>();
    public final List<ReasoningBlock> reasoning = new ArrayList<>();
    public final List<ToolCall> calls = new ArrayList<>();
    public final List<Object> otherBlocks = new ArrayList<>();

    public String text() {
      return TextParts.join(texts);
    }
  }

  /** What a user message's blocks become. */
  public static final class UserParts {
    public final List<JsonNode> toolResults = new ArrayList<>();
    public final List<String> texts = new ArrayList<>();
    public final List<Object> otherBlocks = new ArrayList<>();

    public String text() {
      return TextParts.join(texts);
    }
  }

  public static void addAssistant(JsonNode content, AssistantParts out) {
    forEachBlock(
        content,
        out.texts,
        out.otherBlocks,
        (type, b) -> {
          if ("thinking".equals(type)) {
            out.reasoning.add(
                new ReasoningBlock(
                    "thinking", Json.text(b, "thinking"), Json.text(b, "signature")));
          } else if ("redacted_thinking".equals(type)) {
            out.reasoning.add(new ReasoningBlock("redacted_thinking", Json.text(b, "data"), null));
          } else if ("tool_use".equals(type) && Json.text(b, "id") != null) {
            JsonNode input = b.get("input");
            String args = input == null || input.isNull() ? "{}" : Json.write(input);
            out.calls.add(new ToolCall(Json.text(b, "id"), Json.text(b, "name"), args));
          } else {
            return false;
          }
          return true;
        });
  }

  public static void addUser(JsonNode content, UserParts out) {
    forEachBlock(
        content,
        out.texts,
        out.otherBlocks,
        (type, b) -> "tool_result".equals(type) && out.toolResults.add(b));
  }

  /** A block of a type the caller handles: true when it took the block. */
  private interface BlockHandler {
    boolean take(String type, JsonNode block);
  }

  /**
   * Walks a content value: a string or text block goes to {@code texts}, a block {@code handler}
   * takes is its own, anything else (and a content that is neither string nor array) goes to {@code
   * otherBlocks} as plain values.
   */
  private static void forEachBlock(
      JsonNode content, List<String> texts, List<Object> otherBlocks, BlockHandler handler) {
    if (content == null || content.isNull()) {
      return;
    }
    if (content.isTextual()) {
      texts.add(content.textValue());
      return;
    }
    if (!content.isArray()) {
      otherBlocks.add(Json.plain(content));
      return;
    }
    for (JsonNode b : content) {
      String type = Json.text(b, "type");
      if (b.isTextual()) {
        texts.add(b.textValue());
      } else if ("text".equals(type) && Json.text(b, "text") != null) {
        texts.add(Json.text(b, "text"));
      } else if (!handler.take(type, b)) {
        otherBlocks.add(Json.plain(b));
      }
    }
  }

  /** Fields of a tool_result block that the message itself holds. */
  public static final Set<String> TOOL_RESULT_FIELDS = Set.of("type", "tool_use_id", "content");

  /**
   * The text of a tool_result's {@code content}: a string as is, text blocks joined; {@code
   * nonText} receives the whole content when it holds anything but text.
   */
  public static String toolResultText(JsonNode block, List<Object> nonText) {
    JsonNode c = block.get("content");
    if (c == null || c.isNull()) {
      return "";
    }
    if (c.isTextual()) {
      return c.textValue();
    }
    List<String> texts = new ArrayList<>();
    boolean other = !c.isArray();
    if (c.isArray()) {
      for (JsonNode b : c) {
        if (b.isTextual()) {
          texts.add(b.textValue());
        } else if ("text".equals(Json.text(b, "type")) && Json.text(b, "text") != null) {
          texts.add(Json.text(b, "text"));
        } else {
          other = true;
        }
      }
    }
    if (other) {
      nonText.add(Json.plain(c));
    }
    return TextParts.join(texts);
  }
}
