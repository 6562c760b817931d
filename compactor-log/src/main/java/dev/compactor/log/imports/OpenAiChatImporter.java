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
final class OpenAiChatImporter implements Importer {
  static final String NAME = "openai-chat";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "OpenAI chat messages: a JSON array, or a request body with \"messages\"";
  }

  @Override
  public Detection detect(ImportSource source) throws IOException {
    String[] why = new String[1];
    JsonNode root = JsonFormats.root(source, why);
    if (root == null) {
      return Detection.reject(why[0]);
    }
    JsonNode messages = messages(root);
    if (messages == null) {
      return Detection.reject(
          "the document is " + JsonFormats.kind(root) + ", not a message array nor {\"messages\"}");
    }
    String problem =
        JsonFormats.chatArrayProblem(messages, root.isArray() ? "the array" : "messages");
    if (problem != null) {
      return Detection.reject(problem);
    }
    if (JsonFormats.hasAnthropicBlocks(messages)) {
      return Detection.reject("the messages hold Anthropic content blocks (tool_use/tool_result)");
    }
    return Detection.match(
        50, (root.isArray() ? "a JSON array" : "a request body") + " of role/content messages");
  }

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    JsonNode root = source.json();
    JsonNode messages = messages(root);
    String problem =
        JsonFormats.chatArrayProblem(messages, root.isArray() ? "the array" : "messages");
    if (problem != null) {
      throw new ImportException(source.name() + ": " + problem);
    }
    List<String> notes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    List<Message> list =
        OpenAiMessages.map(
            messages,
            "messages",
            notes,
            problems,
            source,
            root.isArray() ? List.of() : List.of("messages"));
    Map<String, Object> metadata = root.isObject() ? Json.rest(root, Set.of("messages")) : Map.of();
    return List.of(
        Assembly.conversation(source.baseName(), list, metadata, notes, problems, m -> true));
  }

  private static JsonNode messages(JsonNode root) {
    if (root.isArray()) {
      return root;
    }
    if (root.isObject() && root.has("messages")) {
      return root.get("messages");
    }
    return null;
  }
}
