package dev.compactor.models.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Usage;
import dev.compactor.core.model.AppliedEdit;
import dev.compactor.core.model.ChatRequest;
import dev.compactor.core.model.ChatResponse;
import dev.compactor.core.model.CompactionItem;
import dev.compactor.core.model.FinishReason;
import dev.compactor.core.model.ProviderCompaction;
import dev.compactor.core.model.ToolSpec;
import dev.compactor.models.AnthropicContextManagement;
import dev.compactor.models.AnthropicContextManagement.ClearThinking;
import dev.compactor.models.AnthropicContextManagement.ClearToolUses;
import dev.compactor.models.AnthropicContextManagement.Compact;
import dev.compactor.models.internal.ErrorClassifier;
import dev.compactor.models.internal.ErrorMapper;
import dev.compactor.models.internal.MessageAssembler;
import dev.compactor.models.internal.Requests;
import dev.compactor.wire.anthropic.AnthropicMessages;
import dev.compactor.wire.anthropic.AnthropicMessages.Conversation;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.tools.ToolDefinitions;
import dev.compactor.wire.usage.Usages;
import java.util.ArrayList;
import java.util.List;

/** The Anthropic Messages wire format: request bodies and response parsing. */
final class AnthropicWire {
  private AnthropicWire() {}

  static final String PROVIDER = AnthropicMessages.PROVIDER;

  static final String LEADING_USER_TEXT = AnthropicMessagesModel.LEADING_USER_TEXT;

  static Conversation conversation(List<Message> messages) {
    return AnthropicMessages.encode(Requests.sendable(messages), LEADING_USER_TEXT);
  }

  static ObjectNode request(ChatRequest req, String model, int maxTokens, boolean stream) {
    ObjectNode body = Json.object();
    body.put("model", model);
    body.put("max_tokens", maxTokens);
    Conversation c = conversation(req.messages());
    if (c.system() != null) {
      body.put("system", c.system());
    }
    body.set("messages", c.messages());
    if (!req.tools().isEmpty()) {
      ArrayNode tools = body.putArray("tools");
      for (ToolSpec t : req.tools()) {
        ToolDefinitions.add(tools, t, ToolDefinitions.Dialect.ANTHROPIC);
      }
    }
    if (req.temperature() != null) {
      body.put("temperature", req.temperature());
    }
    req.extension(AnthropicContextManagement.class)
        .ifPresent(cm -> body.set("context_management", contextManagement(cm)));
    if (stream) {
      body.put("stream", true);
    }
    Requests.applyOptions(body, req.options());
    return body;
  }

  static ObjectNode contextManagement(AnthropicContextManagement cm) {
    ObjectNode o = Json.object();
    ArrayNode edits = o.putArray("edits");
    for (AnthropicContextManagement.Edit e : cm.edits()) {
      ObjectNode edit = edits.addObject().put("type", e.type());
      if (e instanceof ClearToolUses c) {
        if (c.trigger() != null) {
          edit.putObject("trigger")
              .put("type", c.trigger().unit().wireName())
              .put("value", c.trigger().value());
        }
        if (c.keepToolUses() != null) {
          edit.putObject("keep").put("type", "tool_uses").put("value", c.keepToolUses());
        }
        if (c.clearAtLeastInputTokens() != null) {
          edit.putObject("clear_at_least")
              .put("type", "input_tokens")
              .put("value", c.clearAtLeastInputTokens());
        }
        if (!c.excludeTools().isEmpty()) {
          ArrayNode ex = edit.putArray("exclude_tools");
          c.excludeTools().forEach(ex::add);
        }
        if (c.clearToolInputs() != null) {
          edit.put("clear_tool_inputs", c.clearToolInputs());
        }
      } else if (e instanceof ClearThinking t) {
        if (t.keepAll()) {
          edit.put("keep", "all");
        } else if (t.keepThinkingTurns() != null) {
          edit.putObject("keep").put("type", "thinking_turns").put("value", t.keepThinkingTurns());
        }
      } else if (e instanceof Compact k) {
        if (k.triggerInputTokens() != null) {
          edit.putObject("trigger")
              .put("type", "input_tokens")
              .put("value", k.triggerInputTokens());
        }
        if (k.pauseAfterCompaction() != null) {
          edit.put("pause_after_compaction", k.pauseAfterCompaction());
        }
        if (k.instructions() != null) {
          edit.put("instructions", k.instructions());
        }
      }
    }
    return o;
  }

  static ChatResponse response(
      JsonNode root, AnthropicMessagesModel client, ChatRequest req, String model) {
    ErrorMapper mapper = client.errorMapper();
    if ("error".equals(Json.scalar(root, "type"))) {
      throw mapper.fromStreamEvent(Json.write(root), model, null);
    }
    JsonNode content = root.get("content");
    if (content == null || !content.isArray()) {
      throw ErrorClassifier.malformed(
          mapper, 200, "message (no content array)", Json.write(root), null, null);
    }
    MessageAssembler a = new MessageAssembler();
    int calls = 0;
    int index = 0;
    for (JsonNode block : content) {
      String type = Json.scalar(block, "type");
      int blockIndex = index++;
      if (type == null) {
        continue;
      }
      switch (type) {
        case "text" -> a.appendText(Json.scalar(block, "text"));
        case "thinking" -> {
          MessageAssembler.ReasoningPart p = a.reasoning(blockIndex, "thinking");
          p.append(Json.scalar(block, "thinking"));
          p.signature(Json.scalar(block, "signature"));
        }
        case "redacted_thinking" ->
            a.reasoning(blockIndex, "redacted_thinking").append(Json.scalar(block, "data"));
        case "tool_use" -> {
          MessageAssembler.CallPart p = a.call(calls++);
          p.id(Json.scalar(block, "id"));
          p.name(Json.scalar(block, "name"));
          JsonNode in = block.get("input");
          p.arguments(in == null || in.isNull() ? "{}" : Json.write(in));
          if (p.id() == null) {
            throw ErrorClassifier.malformed(
                mapper, 200, "message (tool_use without id)", Json.write(root), null, null);
          }
        }
        case "compaction" -> a.addCompactionItem(compactionItem(block));
        default -> {
          // server tool blocks and others have no place in a Message
        }
      }
    }
    return build(
        a,
        Json.scalar(root, "stop_reason"),
        root.get("usage"),
        root.get("context_management"),
        Json.scalar(root, "id"),
        Json.scalar(root, "model"),
        client,
        req,
        model);
  }

  static CompactionItem compactionItem(JsonNode block) {
    return AnthropicMessages.compactionItem(block);
  }

  static ChatResponse build(
      MessageAssembler a,
      String stopReason,
      JsonNode usageNode,
      JsonNode contextManagement,
      String id,
      String reported,
      AnthropicMessagesModel client,
      ChatRequest req,
      String model) {
    Usage usage = Usages.anthropic(usageNode);
    List<CompactionItem> items = a.compactionItems();
    ProviderCompaction pc =
        new ProviderCompaction(
            items, appliedEdits(contextManagement), Usages.anthropicCompaction(usageNode));
    Message message =
        Requests.finish(a.build(), client.provider(), model, reported, usage, items, req);
    return new ChatResponse(message, usage, finishReason(stopReason), stopReason, pc, id, reported);
  }

  static List<AppliedEdit> appliedEdits(JsonNode cm) {
    List<AppliedEdit> out = new ArrayList<>();
    JsonNode edits = cm == null ? null : cm.get("applied_edits");
    if (edits != null && edits.isArray()) {
      for (JsonNode e : edits) {
        String type = Json.scalar(e, "type");
        if (type != null) {
          out.add(
              new AppliedEdit(
                  type,
                  Math.max(0, Json.count(e, "cleared_tool_uses")),
                  Math.max(0, Json.count(e, "cleared_thinking_turns")),
                  Math.max(0, Json.count(e, "cleared_input_tokens"))));
        }
      }
    }
    return out;
  }

  static FinishReason finishReason(String raw) {
    if (raw == null) {
      return FinishReason.OTHER;
    }
    return switch (raw) {
      case "end_turn", "stop_sequence" -> FinishReason.STOP;
      case "max_tokens" -> FinishReason.LENGTH;
      case "tool_use" -> FinishReason.TOOL_CALLS;
      case "refusal" -> FinishReason.CONTENT_FILTER;
      case "model_context_window_exceeded" -> FinishReason.CONTEXT_WINDOW_EXCEEDED;
      case "compaction" -> FinishReason.COMPACTION;
      default -> FinishReason.OTHER;
    };
  }
}
