package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.anthropic.AnthropicContent;
import dev.compactor.wire.anthropic.AnthropicMessages;
import dev.compactor.wire.json.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Anthropic Messages JSON: a request body {@code {"system", "messages": [...], ...}} or a bare
 * message array, whose content is a string or a list of blocks (see {@link AnthropicContent}).
 *
 * <p>{@code system} (a string or text blocks) becomes the first, system message. A user message's
 * {@code tool_result} blocks become tool messages, in block order, directly after the assistant
 * message that made the calls; the user message's remaining text follows them as a user message.
 * Messages that carry {@code usage} (response objects) get typed usage, model and provider {@code
 * anthropic}. The request's other fields (model, tools, max_tokens, …) are the conversation's
 * metadata.
 */
final class AnthropicMessagesImporter extends MessageListImporter {
  static final String NAME = "anthropic-messages";

  AnthropicMessagesImporter() {
    super(
        NAME,
        "Anthropic Messages: a request body {system, messages} or a message array with blocks");
  }

  @Override
  Detection detect(JsonNode root, JsonNode messages) {
    for (JsonNode m : messages) {
      String role = Json.text(m, "role");
      if (role != null
          && !role.equals("user")
          && !role.equals("assistant")
          && !role.equals("system")) {
        return Detection.reject(
            "a message has role \"" + role + "\" (Anthropic messages are user or assistant)");
      }
    }
    if (JsonFormats.hasAnthropicBlocks(messages)) {
      return Detection.match(85, "messages with Anthropic content blocks");
    }
    if (root.isObject() && root.has("system")) {
      return Detection.match(75, "a request body with a top-level \"system\"");
    }
    return Detection.reject(
        "no Anthropic content blocks (tool_use, tool_result, thinking) and no top-level \"system\"");
  }

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    JsonNode root = source.json();
    requireMessageList(source, root);
    List<String> notes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    AnthropicMessages.Decoded decoded = AnthropicMessages.decode(root);
    List<Message> out = decoded.messages();
    List<String> skipped =
        OpenAiMessages.located(
            decoded.skipped(), "messages", source, JsonFormats.messageListPath(root));
    Assembly.addCapped(problems, skipped, "messages skipped");
    Map<String, Object> metadata =
        root.isObject() ? Json.rest(root, Set.of("messages", "system")) : Map.of();
    return List.of(
        Assembly.conversation(source.baseName(), out, metadata, notes, problems, m -> true));
  }
}
