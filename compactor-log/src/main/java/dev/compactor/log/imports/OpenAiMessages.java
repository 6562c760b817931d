package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.wire.openai.ChatCompletionsMessages;
import java.util.List;

/**
 * Reads an OpenAI chat message array with {@link ChatCompletionsMessages#decode} and turns what it
 * could not read into import notes. Shared by the OpenAI, tau-bench, mini-swe-agent and SWE-agent
 * importers.
 */
final class OpenAiMessages {
  private OpenAiMessages() {}

  static List<Message> map(JsonNode array, String where, List<String> notes) {
    ChatCompletionsMessages.Decoded d = ChatCompletionsMessages.decode(array, where);
    Assembly.addCapped(notes, d.skipped(), "entries of " + where + " skipped");
    Assembly.addCapped(
        notes, d.badTimestamps(), "unreadable timestamps left empty (kept in metadata.extra)");
    if (d.derivedIds() > 0) {
      notes.add(d.derivedIds() + " tool call(s) without an id got a derived id call-<message>-<n>");
    }
    if (d.unknownRoles() > 0) {
      notes.add(
          d.unknownRoles()
              + " message(s) with a role that is not a chat role were imported as uiOnly system"
              + " messages (metadata.extra.source_role)");
    }
    return d.messages();
  }
}
