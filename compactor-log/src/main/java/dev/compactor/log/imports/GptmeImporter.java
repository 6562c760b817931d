package dev.compactor.log.imports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.message.Usage;
import dev.compactor.wire.json.Json;
import dev.compactor.wire.usage.Usages;
import java.io.IOException;
import java.nio.file.Path;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * gptme {@code conversation.jsonl}: one {@code {"role", "content", "timestamp", ...}} per line,
 * read as a stream.
 *
 * <p>gptme writes tool results as {@code system} messages, with or without {@code call_id}. A run
 * of system messages directly after an assistant message is paired, in order, with the tool uses
 * {@link GptmeToolUses} finds in that assistant message (by {@code call_id} when both sides have
 * one): each paired system message becomes a {@link Role#TOOL} message and the assistant message
 * gets the matching {@link ToolCall} — name from the block type ({@code shell}, {@code ipython},
 * {@code save}, …), arguments {@code {"args": [...], "content": body}} as JSON (the {@code tool}
 * format's JSON verbatim), id the message's {@code call_id} or else {@code gptme-<line>-<n>}
 * derived from the assistant message's line. Pairing stops at the first system message that does
 * not fit, so no call is left without its result; unpaired system messages stay system messages and
 * unpaired code blocks stay plain text. Assistant content is kept verbatim, including {@code
 * <think>} blocks (they are not copied into reasoning blocks: the model saw them inline, and a copy
 * would be counted twice).
 *
 * <p>Fields: {@code pinned}, {@code hide} (→ hidden), {@code ui_only} and {@code metadata.model}
 * and {@code metadata.usage} (also gptme's older flat token fields) are typed; the rest of {@code
 * metadata} is kept in {@code metadata.extra.metadata}, every other field ({@code files}, {@code
 * file_hashes}, {@code quiet}, an unpaired {@code call_id}, …) in {@code metadata.extra} under its
 * own name. Malformed lines after the first are skipped and reported as problems (line and byte
 * offset).
 */
final class GptmeImporter extends FormatImporter {
  static final String NAME = "gptme";

  private static final Set<String> TYPED =
      Set.of("role", "content", "timestamp", "pinned", "hide", "ui_only", "metadata");
  private static final Set<String> TOKEN_KEYS =
      Set.of(
          "input_tokens",
          "output_tokens",
          "cache_read_tokens",
          "cache_creation_tokens",
          "reasoning_tokens");

  GptmeImporter() {
    super(NAME, "gptme conversation.jsonl: one {role, content, timestamp} per line", "JSON lines");
  }

  @Override
  Detection detectContent(ImportSource source) throws IOException {
    List<String> lines = source.firstLines(1);
    JsonNode first;
    try {
      first = Json.TRANSCRIPTS.readTree(lines.get(0));
    } catch (JsonProcessingException e) {
      return Detection.reject("the first line is not JSON: " + Json.describe(e));
    }
    if (first == null || !first.isObject()) {
      return Detection.reject("the first line is " + JsonFormats.kind(first) + ", not an object");
    }
    String role = Json.text(first, "role");
    if (role == null) {
      return Detection.reject("the first line has no \"role\" (" + JsonFormats.kind(first) + ")");
    }
    if (!Set.of("system", "user", "assistant").contains(role)) {
      return Detection.reject("the first line's role \"" + role + "\" is not a gptme role");
    }
    if (!first.path("content").isTextual()) {
      return Detection.reject("the first line has no string \"content\"");
    }
    return first.has("timestamp")
        ? Detection.match(70, "JSON lines of {role, content, timestamp}")
        : Detection.match(55, "JSON lines of {role, content}");
  }

  @Override
  public List<ImportedConversation> read(ImportSource source) throws IOException {
    Reader r = new Reader();
    try (JsonLines in = JsonLines.of(source)) {
      JsonLines.Line line;
      while ((line = in.next()) != null) {
        if (line.text().isBlank()) {
          continue;
        }
        JsonNode node = line.json(r.bad);
        if (node == null) {
          continue;
        }
        if (!node.isObject() || Json.text(node, "role") == null) {
          r.bad.add(line.where() + ": not a message object with a role");
          continue;
        }
        line.noteInvalidUtf8(r.badUtf8);
        r.accept(new Rec(line.number(), node));
      }
    }
    r.flush();
    if (r.out.isEmpty() && !r.bad.isEmpty()) {
      throw new ImportException(source.name() + ": no line is a gptme message; " + r.bad.get(0));
    }
    List<String> notes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Assembly.addCapped(problems, r.bad, "malformed line(s) skipped");
    Assembly.addCapped(
        problems, r.badUtf8, "line(s) with invalid UTF-8, read with U+FFFD in its place");
    Assembly.addCapped(
        problems, r.badTimestamps, "unreadable timestamp(s) left empty (kept in metadata.extra)");
    if (r.paired > 0) {
      notes.add(
          r.paired
              + " tool output(s) (system messages after a tool use) imported as tool results,"
              + " paired with tool calls derived from the assistant's code blocks");
    }
    if (r.unknownRoles > 0) {
      notes.add(
          r.unknownRoles
              + " message(s) with an unknown role imported as uiOnly system messages"
              + " (metadata.extra.source_role)");
    }
    return List.of(
        Assembly.conversation(name(source), r.out, Map.of(), notes, problems, m -> true));
  }

  private static String name(ImportSource source) {
    String base = source.baseName();
    if (base.equals("conversation")) {
      Path parent = source.path().map(Path::toAbsolutePath).map(Path::getParent).orElse(null);
      if (parent != null && parent.getFileName() != null) {
        return parent.getFileName().toString();
      }
    }
    return base;
  }

  private record Rec(int line, JsonNode node) {
    String role() {
      return Json.text(node, "role");
    }

    boolean uiOnly() {
      return Json.flag(node, "ui_only");
    }
  }

  /** Streaming state: an assistant message waits for the system messages that follow it. */
  private static final class Reader {
    final List<Message> out = new ArrayList<>();
    final List<String> bad = new ArrayList<>();
    final List<String> badUtf8 = new ArrayList<>();
    final List<String> badTimestamps = new ArrayList<>();
    final Set<String> callIds = new HashSet<>();
    int paired;
    int unknownRoles;
    Rec assistant;
    final List<Rec> followers = new ArrayList<>();

    void accept(Rec rec) {
      if (assistant != null && "system".equals(rec.role())) {
        followers.add(rec);
        return;
      }
      flush();
      if ("assistant".equals(rec.role())) {
        assistant = rec;
      } else {
        out.add(message(rec, null, null, List.of()));
      }
    }

    void flush() {
      if (assistant == null) {
        return;
      }
      List<GptmeToolUses.Use> uses = GptmeToolUses.find(assistant.node.path("content").asText(""));
      boolean[] used = new boolean[uses.size()];
      boolean anyUseId = uses.stream().anyMatch(u -> u.callId() != null);
      List<ToolCall> calls = new ArrayList<>();
      String[] resultIds = new String[followers.size()];
      boolean stopped = uses.isEmpty();
      for (int f = 0; f < followers.size() && !stopped; f++) {
        Rec s = followers.get(f);
        if (s.uiOnly()) {
          continue;
        }
        String cid = Json.text(s.node, "call_id");
        int pick = -1;
        if (cid != null && anyUseId) {
          for (int u = 0; u < uses.size(); u++) {
            if (!used[u] && cid.equals(uses.get(u).callId())) {
              pick = u;
              break;
            }
          }
        } else {
          for (int u = 0; u < uses.size(); u++) {
            if (!used[u]) {
              pick = u;
              break;
            }
          }
        }
        if (pick < 0) {
          stopped = true;
          break;
        }
        used[pick] = true;
        String id = cid != null ? cid : "gptme-" + assistant.line + "-" + calls.size();
        String unique = id;
        for (int n = 2; callIds.contains(unique); n++) {
          unique = id + "#" + n;
        }
        callIds.add(unique);
        GptmeToolUses.Use use = uses.get(pick);
        calls.add(new ToolCall(unique, use.name(), use.arguments()));
        resultIds[f] = unique;
      }
      out.add(message(assistant, null, null, calls));
      for (int f = 0; f < followers.size(); f++) {
        Rec s = followers.get(f);
        if (resultIds[f] != null) {
          out.add(message(s, Role.TOOL, resultIds[f], List.of()));
          paired++;
        } else {
          out.add(message(s, null, null, List.of()));
        }
      }
      assistant = null;
      followers.clear();
    }

    Message message(Rec rec, Role forcedRole, String toolCallId, List<ToolCall> calls) {
      JsonNode n = rec.node;
      Set<String> consumed = new HashSet<>(TYPED);
      Map<String, Object> extra = new LinkedHashMap<>();
      Role role = forcedRole;
      boolean uiOnly = rec.uiOnly();
      if (role == null) {
        String r = rec.role().toLowerCase(Locale.ROOT);
        switch (r) {
          case "system" -> role = Role.SYSTEM;
          case "user" -> role = Role.USER;
          case "assistant" -> role = Role.ASSISTANT;
          default -> {
            role = Role.SYSTEM;
            uiOnly = true;
            extra.put("source_role", rec.role());
            unknownRoles++;
          }
        }
      }
      if (toolCallId != null && toolCallId.equals(Json.text(n, "call_id"))) {
        consumed.add("call_id");
      }
      Message.Builder b =
          Message.builder(role)
              .id("gptme-" + rec.line)
              .toolCallId(toolCallId)
              .toolCalls(calls)
              .pinned(Json.flag(n, "pinned"))
              .hidden(Json.flag(n, "hide"))
              .uiOnly(uiOnly);
      JsonNode content = n.get("content");
      if (content != null && content.isTextual()) {
        b.content(content.textValue());
      } else if (content != null && !content.isNull()) {
        extra.put("content", Json.plain(content));
      }
      JsonNode ts = n.get("timestamp");
      try {
        b.timestamp(Json.timestamp(ts));
      } catch (DateTimeParseException e) {
        badTimestamps.add("line " + rec.line + ": " + ts);
        extra.put("timestamp", Json.plain(ts));
      }
      extra.putAll(Json.rest(n, consumed));
      if (toolCallId != null && !consumed.contains("call_id") && n.has("call_id")) {
        extra.put("source_call_id", Json.plain(n.get("call_id")));
        extra.remove("call_id");
      }
      // metadata: model and usage typed, the rest kept.
      JsonNode md = n.get("metadata");
      String model = null;
      String provider = null;
      Usage usage = null;
      if (md != null && md.isObject()) {
        model = Json.text(md, "model");
        if (model != null && model.indexOf('/') > 0) {
          provider = model.substring(0, model.indexOf('/'));
        }
        Set<String> typed = new HashSet<>(Set.of("model"));
        if (md.has("usage")) {
          usage = Usages.parse(md.get("usage"));
          if (usage != null) {
            typed.add("usage");
          }
        } else {
          usage = Usages.parse(md);
          if (usage != null) {
            typed.addAll(TOKEN_KEYS);
          }
        }
        Map<String, Object> rest = Json.rest(md, typed);
        if (!rest.isEmpty()) {
          extra.put("metadata", rest);
        }
      } else if (md != null && !md.isNull()) {
        extra.put("metadata", Json.plain(md));
      }
      b.metadata(new MessageMetadata(model, provider, usage, null, extra));
      return b.build();
    }
  }
}
