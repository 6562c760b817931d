package dev.compactor.log.imports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.wire.anthropic.AnthropicContent;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.usage.Usages;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Claude Code session JSONL ({@code ~/.claude/projects/<project>/<session>.jsonl} and its {@code
 * subagents/agent-*.jsonl} side chains): one event per line, {@code type} user, assistant, system,
 * progress, summary, file-history-snapshot, …; {@code message} is an Anthropic Messages message.
 *
 * <p><b>Which events.</b> Events are deduplicated by {@code uuid}. The conversation is the main
 * chain: from the last user/assistant/system event back by {@code parentUuid} to the root, crossing
 * compactions through the {@code logicalParentUuid} of a {@code compact_boundary} system event, so
 * the whole history is imported. Events with {@code isSidechain} are skipped unless the whole file
 * is a side chain (a subagent file); a side chain whose first parent lives in another file starts
 * at its first event here. Claude Code writes one API message as several events with the same
 * {@code message.id}, one content block each, and hangs the results of parallel calls off the
 * individual events: so the assistant events sharing a {@code message.id} with a chain event, and
 * the tool results answering their calls, belong to the conversation too. Progress, snapshots,
 * queue operations and other non-message events are skipped (counted in a note).
 *
 * <p><b>Mapping.</b> The events of one assistant message merge into one assistant message (content
 * from the text blocks, thinking blocks as reasoning blocks verbatim with signature, tool_use
 * blocks as tool calls, {@code message.usage} as usage (and, whole, as {@code
 * metadata.extra.api_usage}), {@code message.model}, provider {@code anthropic}). A user event's
 * {@code tool_result} blocks become tool messages placed directly after the assistant message that
 * made the calls; its text becomes a user message after them; {@code isMeta} user messages (sent to
 * the model, not shown) are {@code hidden}. System events are Claude Code's UI records and become
 * {@code uiOnly} system messages.
 *
 * <p><b>Compaction.</b> The user message with {@code isCompactSummary} is Claude Code's own summary
 * of the history before it. It is kept, marked {@code metadata.extra.compact_summary = true}, and
 * made {@code uiOnly}: the imported conversation holds the full history it summarizes, so sending
 * both would duplicate it to the model. Usage anchors ({@code metadata.input}) are set only on
 * assistant messages before the first compaction boundary (after it, the provider saw the summary,
 * not the imported history) and not at all in a chain that continues another file's chain.
 *
 * <p><b>Fields.</b> Session-wide fields (sessionId, cwd, version, gitBranch, slug, userType,
 * agentId) and {@code summary} records go to the conversation's metadata; per-event fields to
 * {@code metadata.extra} (e.g. {@code requestId}, {@code subtype}, {@code compactMetadata}), except
 * the chain links, UI state ({@code thinkingMetadata}, {@code todos}, {@code permissionMode}) and
 * {@code toolUseResult}, Claude Code's structured duplicate of the tool_result content.
 */
final class ClaudeCodeImporter extends FormatImporter {
  static final String NAME = "claude-code";

  private static final Set<String> MESSAGE_TYPES = Set.of("user", "assistant", "system");
  private static final List<String> SESSION_FIELDS =
      List.of("sessionId", "agentId", "cwd", "version", "gitBranch", "slug", "userType");
  private static final Set<String> EVENT_FIELDS_NOT_KEPT = eventFieldsNotKept();
  private static final Set<String> API_MESSAGE_FIELDS =
      Set.of("id", "type", "role", "content", "model", "usage");

  private static Set<String> eventFieldsNotKept() {
    Set<String> s =
        new HashSet<>(
            Set.of(
                "type",
                "message",
                "uuid",
                "parentUuid",
                "logicalParentUuid",
                "isSidechain",
                "timestamp",
                "toolUseResult",
                "sourceToolAssistantUUID",
                "thinkingMetadata",
                "todos",
                "permissionMode",
                "isMeta",
                "isCompactSummary",
                "isVisibleInTranscriptOnly"));
    s.addAll(SESSION_FIELDS);
    return Set.copyOf(s);
  }

  ClaudeCodeImporter() {
    super(
        NAME, "Claude Code session JSONL: one event per line, linked by parentUuid", "JSON lines");
  }

  @Override
  Detection detectContent(ImportSource source) throws IOException {
    List<String> lines = source.firstLines(10);
    String firstBad = null;
    for (int i = 0; i < lines.size(); i++) {
      JsonNode node;
      try {
        node = Json.TRANSCRIPTS.readTree(lines.get(i));
      } catch (JsonProcessingException e) {
        // A malformed line does not decide the format: the reader skips it and reports it.
        firstBad =
            firstBad != null ? firstBad : "line " + (i + 1) + " is not JSON: " + Json.describe(e);
        continue;
      }
      if (node == null || !node.isObject()) {
        firstBad =
            firstBad != null
                ? firstBad
                : "line " + (i + 1) + " is " + JsonFormats.kind(node) + ", not an event object";
        continue;
      }
      String type = Json.text(node, "type");
      if (type != null
          && (node.has("uuid")
              || node.has("sessionId")
              || node.has("leafUuid")
              || node.has("messageId"))) {
        return Detection.match(90, "line " + (i + 1) + " is a Claude Code event of type " + type);
      }
    }
    return Detection.reject(
        "none of the first "
            + lines.size()
            + " lines is a Claude Code event (an object with \"type\" and \"uuid\"/\"sessionId\")"
            + (firstBad == null ? "" : "; " + firstBad));
  }

  private record Event(
      int line,
      String uuid,
      String parent,
      String logicalParent,
      String type,
      boolean sidechain,
      JsonNode node) {}

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    List<Event> events = new ArrayList<>();
    Map<String, Integer> skippedTypes = new TreeMap<>();
    List<String> bad = new ArrayList<>();
    Map<String, Object> metadata = new LinkedHashMap<>();
    List<Object> summaries = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    int duplicates = 0;
    List<String> badUtf8 = new ArrayList<>();
    try (JsonLines in = JsonLines.of(source)) {
      JsonLines.Line line;
      while ((line = in.next()) != null) {
        int lineNo = line.number();
        if (line.text().isBlank()) {
          continue;
        }
        JsonNode node = line.json(bad);
        if (node == null) {
          continue;
        }
        if (!node.isObject()) {
          bad.add(line.where() + ": not an event object");
          continue;
        }
        line.noteInvalidUtf8(badUtf8);
        String type = Json.text(node, "type");
        if (type == null) {
          type = "(untyped)";
        }
        if (type.equals("summary")) {
          summaries.add(Json.plain(node));
          continue;
        }
        for (String f : SESSION_FIELDS) {
          if (!metadata.containsKey(f) && Json.text(node, f) != null) {
            metadata.put(f, Json.text(node, f));
          }
        }
        String uuid = Json.text(node, "uuid");
        if (uuid == null) {
          skippedTypes.merge(type, 1, Integer::sum);
          continue;
        }
        if (!seen.add(uuid)) {
          duplicates++;
          continue;
        }
        boolean message =
            MESSAGE_TYPES.contains(type) && node.path("message").isObject()
                || type.equals("system");
        events.add(
            new Event(
                lineNo,
                uuid,
                Json.text(node, "parentUuid"),
                Json.text(node, "logicalParentUuid"),
                type,
                Json.flag(node, "isSidechain"),
                message ? node : null));
      }
    }
    if (events.isEmpty() && summaries.isEmpty() && !bad.isEmpty()) {
      throw new ImportException(source.name() + ": no line is a Claude Code event; " + bad.get(0));
    }
    if (!summaries.isEmpty()) {
      metadata.put("summaries", summaries);
    }
    List<String> notes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Assembly.addCapped(problems, bad, "malformed line(s) skipped");
    Assembly.addCapped(
        problems, badUtf8, "line(s) with invalid UTF-8, read with U+FFFD in its place");
    if (duplicates > 0) {
      notes.add(duplicates + " repeated event(s) (same uuid) skipped");
    }
    Builder b = new Builder(events, notes, problems);
    List<Message> messages = b.build();
    Map<String, Integer> skipped = new TreeMap<>(skippedTypes);
    b.skippedByType.forEach((k, v) -> skipped.merge(k, v, Integer::sum));
    if (!skipped.isEmpty()) {
      StringBuilder sb = new StringBuilder("skipped non-message events:");
      skipped.forEach((k, v) -> sb.append(' ').append(v).append(' ').append(k).append(','));
      sb.setLength(sb.length() - 1);
      notes.add(sb.toString());
    }
    Set<MessageId> noAnchor = b.noAnchor;
    return List.of(
        Assembly.conversation(
            source.baseName(),
            messages,
            metadata,
            notes,
            problems,
            m -> !noAnchor.contains(m.id())));
  }

  /** Chooses the events of the conversation and turns them into messages. */
  private static final class Builder {
    final List<Event> all;
    final List<String> notes;
    final List<String> problems;
    final Map<String, Integer> skippedByType = new TreeMap<>();
    final Set<MessageId> noAnchor = new HashSet<>();
    final Map<String, Integer> idUses = new HashMap<>();
    final List<String> badTimestamps = new ArrayList<>();

    Builder(List<Event> all, List<String> notes, List<String> problems) {
      this.all = all;
      this.notes = notes;
      this.problems = problems;
    }

    /** An assistant API message: its events and the results of its calls. */
    final class AssistantSlot {
      final List<Event> events = new ArrayList<>();
      final List<Map.Entry<Integer, Message>> results = new ArrayList<>();
    }

    List<Message> build() {
      boolean hasMain = all.stream().anyMatch(e -> !e.sidechain());
      List<Event> pool = hasMain ? all.stream().filter(e -> !e.sidechain()).toList() : all;
      if (hasMain && pool.size() < all.size()) {
        notes.add((all.size() - pool.size()) + " side-chain event(s) (isSidechain) skipped");
      }
      Map<String, Event> byUuid = new HashMap<>();
      for (Event e : pool) {
        byUuid.put(e.uuid(), e);
      }
      Event tip = null;
      for (int i = pool.size() - 1; i >= 0 && tip == null; i--) {
        if (pool.get(i).node() != null) {
          tip = pool.get(i);
        }
      }
      if (tip == null) {
        notes.add("no user, assistant or system event: the conversation is empty");
        return List.of();
      }

      // The main chain, root-wards.
      Set<String> chain = new HashSet<>();
      boolean continuation = false;
      for (Event cur = tip; cur != null && chain.add(cur.uuid()); ) {
        String p = cur.parent();
        if (p == null && cur.logicalParent() != null) {
          p = cur.logicalParent();
          JsonNode cm = cur.node() == null ? null : cur.node().get("compactMetadata");
          notes.add(
              "followed the compaction boundary at "
                  + (cur.node() == null ? "?" : Json.text(cur.node(), "timestamp"))
                  + (cm == null ? "" : " " + Json.write(cm))
                  + " to its logical parent "
                  + p);
        }
        if (p == null) {
          break;
        }
        Event next = byUuid.get(p);
        if (next == null) {
          continuation = true;
          notes.add(
              "the chain starts at parent "
                  + p
                  + ", which is not in this file (it continues another file's chain);"
                  + " usage anchors not set");
        }
        cur = next;
      }

      // Events of the conversation: the chain's message events, all events of the same assistant
      // API messages, and the results of their calls.
      Set<String> apiIds = new HashSet<>();
      for (Event e : pool) {
        if (chain.contains(e.uuid()) && "assistant".equals(e.type()) && e.node() != null) {
          apiIds.add(apiId(e));
        }
      }
      List<Event> included = new ArrayList<>();
      Set<String> calls = new HashSet<>();
      for (Event e : pool) {
        if (e.node() == null) {
          skippedByType.merge(e.type(), 1, Integer::sum);
          continue;
        }
        boolean in =
            chain.contains(e.uuid()) || ("assistant".equals(e.type()) && apiIds.contains(apiId(e)));
        if (in) {
          included.add(e);
          if ("assistant".equals(e.type())) {
            for (JsonNode blk : e.node().path("message").path("content")) {
              if ("tool_use".equals(Json.text(blk, "type")) && Json.text(blk, "id") != null) {
                calls.add(Json.text(blk, "id"));
              }
            }
          }
        }
      }
      Set<String> includedIds = new HashSet<>();
      included.forEach(e -> includedIds.add(e.uuid()));
      int offChain = 0;
      for (Event e : pool) {
        if (e.node() == null || includedIds.contains(e.uuid())) {
          continue;
        }
        if ("user".equals(e.type()) && answersAny(e, calls)) {
          included.add(e);
        } else {
          offChain++;
        }
      }
      if (offChain > 0) {
        notes.add(
            offChain
                + " user/assistant/system event(s) off the main chain skipped"
                + " (abandoned branches or copies from the parent session)");
      }
      included.sort(Comparator.comparingInt(Event::line));

      // One slot per assistant API message.
      Map<String, AssistantSlot> byApiId = new HashMap<>();
      Map<String, AssistantSlot> callOwner = new HashMap<>();
      int assistantEvents = 0;
      for (Event e : included) {
        if ("assistant".equals(e.type())) {
          assistantEvents++;
          AssistantSlot slot = byApiId.computeIfAbsent(apiId(e), k -> new AssistantSlot());
          slot.events.add(e);
          for (JsonNode blk : e.node().path("message").path("content")) {
            if ("tool_use".equals(Json.text(blk, "type")) && Json.text(blk, "id") != null) {
              callOwner.putIfAbsent(Json.text(blk, "id"), slot);
            }
          }
        }
      }
      if (assistantEvents > byApiId.size()) {
        notes.add(
            "merged "
                + assistantEvents
                + " assistant events into "
                + byApiId.size()
                + " assistant messages (same message.id)");
      }
      // Place user and system events among the assistant messages, in file order.
      List<Object> ordered = new ArrayList<>();
      Set<AssistantSlot> placed = new HashSet<>();
      Set<String> answered = new HashSet<>();
      int summariesKept = 0;
      for (Event e : included) {
        switch (e.type()) {
          case "assistant" -> {
            AssistantSlot s = byApiId.get(apiId(e));
            if (placed.add(s)) {
              ordered.add(s);
            }
          }
          case "user" -> {
            for (Message m : userMessages(e, callOwner, answered)) {
              ordered.add(m);
            }
            if (Json.flag(e.node(), "isCompactSummary")) {
              summariesKept++;
            }
          }
          default -> ordered.add(systemMessage(e));
        }
      }
      if (summariesKept > 0) {
        notes.add(
            summariesKept
                + " Claude Code compaction summary message(s) kept as uiOnly user messages"
                + " (metadata.extra.compact_summary): the full history they summarize is imported");
      }

      // Emit.
      List<Message> out = new ArrayList<>();
      boolean anchorable = !continuation;
      boolean afterBoundary = false;
      for (Object o : ordered) {
        if (o instanceof AssistantSlot s) {
          Message a = assistantMessage(s);
          if (!anchorable) {
            noAnchor.add(a.id());
          }
          out.add(a);
          s.results.sort(Map.Entry.comparingByKey());
          for (Map.Entry<Integer, Message> r : s.results) {
            out.add(r.getValue());
          }
        } else {
          Message m = (Message) o;
          out.add(m);
          if ("compact_boundary".equals(m.metadata().extra().get("subtype"))) {
            anchorable = false;
            afterBoundary = true;
          }
        }
      }
      if (afterBoundary && !continuation) {
        notes.add(
            "usage anchors set only before the compaction boundary: after it the provider saw"
                + " Claude Code's summary, not the imported history");
      }
      Assembly.addCapped(problems, badTimestamps, "unreadable timestamp(s) left empty");
      return out;
    }

    private static String apiId(Event e) {
      String id = Json.text(e.node().path("message"), "id");
      return id != null ? id : e.uuid();
    }

    private static boolean answersAny(Event e, Set<String> calls) {
      for (JsonNode blk : e.node().path("message").path("content")) {
        if ("tool_result".equals(Json.text(blk, "type"))
            && calls.contains(Json.text(blk, "tool_use_id"))) {
          return true;
        }
      }
      return false;
    }

    private String nextId(Event e) {
      int n = idUses.merge(e.uuid(), 1, Integer::sum);
      return n == 1 ? e.uuid() : e.uuid() + "/" + (n - 1);
    }

    private Instant timestamp(Event e) {
      JsonNode ts = e.node().get("timestamp");
      try {
        return Json.timestamp(ts);
      } catch (DateTimeParseException ex) {
        badTimestamps.add("line " + e.line() + ": " + ts);
        return null;
      }
    }

    private Map<String, Object> eventExtra(Event e) {
      return Json.rest(e.node(), EVENT_FIELDS_NOT_KEPT);
    }

    private Message assistantMessage(AssistantSlot s) {
      AnthropicContent.AssistantParts parts = new AnthropicContent.AssistantParts();
      String model = null;
      JsonNode usage = null;
      Map<String, Object> apiExtra = new LinkedHashMap<>();
      List<Object> uuids = new ArrayList<>();
      for (Event e : s.events) {
        JsonNode msg = e.node().path("message");
        AnthropicContent.addAssistant(msg.get("content"), parts);
        if (Json.text(msg, "model") != null) {
          model = Json.text(msg, "model");
        }
        if (msg.path("usage").isObject()) {
          usage = msg.get("usage");
        }
        apiExtra.putAll(Json.rest(msg, API_MESSAGE_FIELDS));
        uuids.add(e.uuid());
      }
      Event first = s.events.get(0);
      Map<String, Object> extra = eventExtra(first);
      String apiId = Json.text(first.node().path("message"), "id");
      if (apiId != null) {
        extra.put("message_id", apiId);
      }
      extra.putAll(apiExtra);
      if (usage != null) {
        extra.put(AnthropicContent.USAGE_EXTRA, Json.plain(usage));
      }
      if (!parts.otherBlocks.isEmpty()) {
        extra.put("content_blocks", parts.otherBlocks);
      }
      if (uuids.size() > 1) {
        extra.put("event_uuids", uuids);
      }
      List<ToolCall> calls = parts.calls;
      return Message.builder(Role.ASSISTANT)
          .id(nextId(first))
          .content(parts.text())
          .reasoning(parts.reasoning)
          .toolCalls(calls)
          .timestamp(timestamp(first))
          .metadata(new MessageMetadata(model, "anthropic", Usages.parse(usage), null, extra))
          .build();
    }

    private List<Message> userMessages(
        Event e, Map<String, AssistantSlot> callOwner, Set<String> answered) {
      List<Message> inPlace = new ArrayList<>();
      JsonNode msg = e.node().path("message");
      AnthropicContent.UserParts parts = new AnthropicContent.UserParts();
      AnthropicContent.addUser(msg.get("content"), parts);
      Instant ts = timestamp(e);
      Map<String, Object> eventExtra = eventExtra(e);
      for (JsonNode r : parts.toolResults) {
        String callId = Json.text(r, "tool_use_id");
        List<Object> nonText = new ArrayList<>();
        String text = AnthropicContent.toolResultText(r, nonText);
        Map<String, Object> extra = new LinkedHashMap<>(eventExtra);
        extra.putAll(Json.rest(r, AnthropicContent.TOOL_RESULT_FIELDS));
        if (!nonText.isEmpty()) {
          extra.put("content", nonText.get(0));
        }
        Message result =
            Message.builder(Role.TOOL)
                .id(nextId(e))
                .toolCallId(callId)
                .content(text)
                .timestamp(ts)
                .metadata(new MessageMetadata(null, null, null, null, extra))
                .build();
        AssistantSlot owner = callId == null ? null : callOwner.get(callId);
        if (owner != null && answered.add(callId)) {
          owner.results.add(Map.entry(e.line(), result));
        } else {
          inPlace.add(result); // no call for it: the repair step makes it a user message
        }
      }
      if (!parts.texts.isEmpty() || !parts.otherBlocks.isEmpty() || parts.toolResults.isEmpty()) {
        Map<String, Object> extra = new LinkedHashMap<>(eventExtra);
        boolean summary = Json.flag(e.node(), "isCompactSummary");
        if (summary) {
          extra.put("compact_summary", true);
        }
        if (Json.flag(e.node(), "isVisibleInTranscriptOnly")) {
          extra.put("isVisibleInTranscriptOnly", true);
        }
        if (!parts.otherBlocks.isEmpty()) {
          extra.put("content_blocks", parts.otherBlocks);
        }
        extra.putAll(Json.rest(msg, Set.of("role", "content")));
        inPlace.add(
            Message.builder(Role.USER)
                .id(nextId(e))
                .content(parts.text())
                .timestamp(ts)
                .hidden(Json.flag(e.node(), "isMeta"))
                .uiOnly(summary || Json.flag(e.node(), "isVisibleInTranscriptOnly"))
                .metadata(new MessageMetadata(null, null, null, null, extra))
                .build());
      }
      return inPlace;
    }

    private Message systemMessage(Event e) {
      Map<String, Object> extra = Json.rest(e.node(), EVENT_FIELDS_NOT_KEPT);
      String content = Json.text(e.node(), "content");
      if (content != null) {
        extra.remove("content");
      }
      if (Json.flag(e.node(), "isMeta")) {
        extra.put("isMeta", true);
      }
      return Message.builder(Role.SYSTEM)
          .id(nextId(e))
          .content(content)
          .timestamp(timestamp(e))
          .uiOnly(true)
          .metadata(new MessageMetadata(null, null, null, null, extra))
          .build();
    }
  }
}
