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

  /**
   * The messages of {@code array}; how the mapping went goes to {@code notes}, what was broken in
   * the source (entries skipped, unreadable timestamps) to {@code problems}.
   */
  static List<Message> map(
      JsonNode array, String where, List<String> notes, List<String> problems) {
    return map(array, where, notes, problems, null, List.of());
  }

  /**
   * Like {@link #map(JsonNode, String, List, List)}, naming where in {@code source} each skipped
   * entry starts (line, column and byte offset) when {@code source} is given.
   *
   * @param arrayPath where {@code array} is in the document (see {@link ImportSource#locate})
   */
  static List<Message> map(
      JsonNode array,
      String where,
      List<String> notes,
      List<String> problems,
      ImportSource source,
      List<?> arrayPath) {
    ChatCompletionsMessages.Decoded d = ChatCompletionsMessages.decode(array, where);
    Assembly.addCapped(
        problems,
        located(d.skipped(), where, source, arrayPath),
        "entries of " + where + " skipped");
    Assembly.addCapped(
        problems, d.badTimestamps(), "unreadable timestamps left empty (kept in metadata.extra)");
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

  private static final int LOCATED = 5; // as many as a problem line shows (Assembly.addCapped)

  /**
   * {@code items} ({@code where[i] …}, one per bad entry) with the position of each of the first
   * few entries in the source after its index: {@code where[i] (line L, column C, byte B) …}.
   */
  static List<String> located(
      List<String> items, String where, ImportSource source, List<?> arrayPath) {
    if (source == null || items.isEmpty()) {
      return items;
    }
    java.util.regex.Pattern at =
        java.util.regex.Pattern.compile(
            "^" + java.util.regex.Pattern.quote(where) + "\\[(\\d+)\\]");
    java.util.Set<Integer> wanted = new java.util.TreeSet<>();
    for (String item : items.subList(0, Math.min(LOCATED, items.size()))) {
      java.util.regex.Matcher m = at.matcher(item);
      if (m.find()) {
        wanted.add(Integer.parseInt(m.group(1)));
      }
    }
    java.util.Map<Integer, String> where0;
    try {
      where0 = source.locate(arrayPath, wanted);
    } catch (java.io.IOException e) {
      return items; // the source was read a moment ago; without positions the items still say what
    }
    List<String> out = new java.util.ArrayList<>(items.size());
    for (String item : items) {
      java.util.regex.Matcher m = at.matcher(item);
      String pos = m.find() ? where0.get(Integer.parseInt(m.group(1))) : null;
      out.add(
          pos == null
              ? item
              : item.substring(0, m.end()) + " (" + pos + ")" + item.substring(m.end()));
    }
    return out;
  }
}
