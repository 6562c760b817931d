package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Anthropic Messages content blocks, shared by the Anthropic and Claude Code importers.
 *
 * <p>Assistant blocks: {@code text} → content, {@code thinking}/{@code redacted_thinking} →
 * reasoning blocks (verbatim, with signature), {@code tool_use} → a tool call whose arguments are
 * the {@code input} object as JSON. User blocks: {@code tool_result} → a tool result, {@code text}
 * → content. Any other block (images, documents, server tool blocks) is kept whole in {@code
 * metadata.extra}.
 */
final class AnthropicContent {
  private AnthropicContent() {}

  /**
   * The {@code metadata.extra} key of an assistant message's {@code usage} object as the API sent
   * it (service tier, cache breakdown and the like). The counts are also in the typed usage field,
   * whose name on disk is {@code usage}, so the wire object cannot keep that name.
   */
  static final String USAGE_EXTRA = "api_usage";

  /** What an assistant message's blocks become. */
  static final class AssistantParts {
    final List<String> texts = new ArrayList<>();
    final List<ReasoningBlock> reasoning = new ArrayList<>();
    final List<ToolCall> calls = new ArrayList<>();
    final List<Object> otherBlocks = new ArrayList<>();

    String text() {
      return join(texts);
    }
  }

  /** What a user message's blocks become. */
  static final class UserParts {
    final List<JsonNode> toolResults = new ArrayList<>();
    final List<String> texts = new ArrayList<>();
    final List<Object> otherBlocks = new ArrayList<>();

    String text() {
      return join(texts);
    }
  }

  static void addAssistant(JsonNode content, AssistantParts out) {
    if (content == null || content.isNull()) {
      return;
    }
    if (content.isTextual()) {
      out.texts.add(content.textValue());
      return;
    }
    if (!content.isArray()) {
      out.otherBlocks.add(Json.plain(content));
      return;
    }
    for (JsonNode b : content) {
      String type = Json.text(b, "type");
      if (b.isTextual()) {
        out.texts.add(b.textValue());
      } else if ("text".equals(type) && Json.text(b, "text") != null) {
        out.texts.add(Json.text(b, "text"));
      } else if ("thinking".equals(type)) {
        out.reasoning.add(
            new ReasoningBlock("thinking", Json.text(b, "thinking"), Json.text(b, "signature")));
      } else if ("redacted_thinking".equals(type)) {
        out.reasoning.add(new ReasoningBlock("redacted_thinking", Json.text(b, "data"), null));
      } else if ("tool_use".equals(type) && Json.text(b, "id") != null) {
        JsonNode input = b.get("input");
        String args = input == null || input.isNull() ? "{}" : Json.write(input);
        out.calls.add(new ToolCall(Json.text(b, "id"), Json.text(b, "name"), args));
      } else {
        out.otherBlocks.add(Json.plain(b));
      }
    }
  }

  static void addUser(JsonNode content, UserParts out) {
    if (content == null || content.isNull()) {
      return;
    }
    if (content.isTextual()) {
      out.texts.add(content.textValue());
      return;
    }
    if (!content.isArray()) {
      out.otherBlocks.add(Json.plain(content));
      return;
    }
    for (JsonNode b : content) {
      String type = Json.text(b, "type");
      if (b.isTextual()) {
        out.texts.add(b.textValue());
      } else if ("text".equals(type) && Json.text(b, "text") != null) {
        out.texts.add(Json.text(b, "text"));
      } else if ("tool_result".equals(type)) {
        out.toolResults.add(b);
      } else {
        out.otherBlocks.add(Json.plain(b));
      }
    }
  }

  /** Fields of a tool_result block that the message itself holds. */
  static final Set<String> TOOL_RESULT_FIELDS = Set.of("type", "tool_use_id", "content");

  /**
   * The text of a tool_result's {@code content}: a string as is, text blocks joined; {@code
   * nonText} receives the whole content when it holds anything but text.
   */
  static String toolResultText(JsonNode block, List<Object> nonText) {
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
    return join(texts);
  }

  /**
   * Joins text blocks: concatenated as they are, with a blank line between two blocks only when
   * neither already has whitespace at the joint. No text is dropped or changed.
   */
  static String join(List<String> texts) {
    if (texts.isEmpty()) {
      return "";
    }
    if (texts.size() == 1) {
      return texts.get(0);
    }
    StringBuilder sb = new StringBuilder();
    for (String t : texts) {
      if (sb.length() > 0
          && !t.isEmpty()
          && !Character.isWhitespace(sb.charAt(sb.length() - 1))
          && !Character.isWhitespace(t.charAt(0))) {
        sb.append("\n\n");
      }
      sb.append(t);
    }
    return sb.toString();
  }
}
