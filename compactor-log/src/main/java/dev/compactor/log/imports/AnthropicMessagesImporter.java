package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
final class AnthropicMessagesImporter implements Importer {
  static final String NAME = "anthropic-messages";

  private static final Set<String> MESSAGE_FIELDS = Set.of("role", "content", "usage", "model");

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Anthropic Messages: a request body {system, messages} or a message array with blocks";
  }

  @Override
  public Detection detect(ImportSource source) throws IOException {
    String[] why = new String[1];
    JsonNode root = JsonFormats.root(source, why);
    if (root == null) {
      return Detection.reject(why[0]);
    }
    JsonNode messages = root.isArray() ? root : root.get("messages");
    if (messages == null) {
      return Detection.reject(
          "the document is " + JsonFormats.kind(root) + ", not a message array nor {\"messages\"}");
    }
    String problem =
        JsonFormats.chatArrayProblem(messages, root.isArray() ? "the array" : "messages");
    if (problem != null) {
      return Detection.reject(problem);
    }
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
    JsonNode messages = root.isArray() ? root : root.get("messages");
    String problem =
        JsonFormats.chatArrayProblem(messages, root.isArray() ? "the array" : "messages");
    if (problem != null) {
      throw new ImportException(source.name() + ": " + problem);
    }
    List<String> notes = new ArrayList<>();
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
          extra.put(AnthropicContent.USAGE_EXTRA, Json.plain(m.get("usage")));
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
    Assembly.addCapped(notes, skipped, "messages skipped");
    Map<String, Object> metadata =
        root.isObject() ? Json.rest(root, Set.of("messages", "system")) : Map.of();
    return List.of(Assembly.conversation(source.baseName(), out, metadata, notes, m -> true));
  }
}
