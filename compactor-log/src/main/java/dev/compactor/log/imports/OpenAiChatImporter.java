package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * OpenAI chat messages: a JSON array of {@code {role, content, tool_calls, tool_call_id, name}}, or
 * a request body {@code {"model", "messages": [...], ...}} whose other fields (model, tools, …)
 * become the conversation's metadata. Message mapping as in {@link OpenAiMessages}.
 */
final class OpenAiChatImporter extends MessageListImporter {
  static final String NAME = "openai-chat";

  OpenAiChatImporter() {
    super(NAME, "OpenAI chat messages: a JSON array, or a request body with \"messages\"");
  }

  @Override
  Detection detect(JsonNode root, JsonNode messages) {
    if (JsonFormats.hasAnthropicBlocks(messages)) {
      return Detection.reject("the messages hold Anthropic content blocks (tool_use/tool_result)");
    }
    return Detection.match(
        50, (root.isArray() ? "a JSON array" : "a request body") + " of role/content messages");
  }

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    JsonNode root = source.json();
    JsonNode messages = requireMessageList(source, root);
    List<String> notes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<Message> list =
        OpenAiMessages.map(
            messages, "messages", notes, problems, source, JsonFormats.messageListPath(root));
    Map<String, Object> metadata = root.isObject() ? Json.rest(root, Set.of("messages")) : Map.of();
    return List.of(
        Assembly.conversation(source.baseName(), list, metadata, notes, problems, m -> true));
  }
}
