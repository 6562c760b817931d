package dev.compactor.log.imports;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.compactor.wire.json.Json;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the tool uses in a gptme assistant message, in the three syntaxes gptme writes: markdown
 * code blocks whose language is a tool's block type (```` ```shell ````, ```` ```save path ````),
 * the {@code tool} format ({@code @shell(call_id): {json}}) and the XML format ({@code
 * <tool-use><shell>…</shell></tool-use>}). gptme itself needs its tool registry for this; without
 * it, the block types of gptme's built-in tools are recognised.
 */
final class GptmeToolUses {
  private GptmeToolUses() {}

  /** Block types of gptme's built-in runnable tools. */
  static final Set<String> BLOCK_TYPES =
      Set.of(
          "shell",
          "ipython",
          "py",
          "save",
          "append",
          "patch",
          "morph",
          "tmux",
          "gh",
          "browser",
          "computer",
          "screenshot",
          "vision",
          "subagent",
          "chats",
          "rag",
          "read",
          "todo",
          "todowrite",
          "todoread",
          "complete",
          "choice",
          "tts",
          "elicit",
          "restart");

  /**
   * One tool use.
   *
   * @param name tool (block type)
   * @param callId the call id written in the message ({@code tool} format), or null
   * @param arguments JSON object text: the {@code tool} format's JSON verbatim; for blocks {@code
   *     {"args": [...], "content": body}} ({@code args} only when the info string has words after
   *     the block type)
   * @param position offset in the message, for ordering
   */
  record Use(String name, String callId, String arguments, int position) {}

  private static final Pattern TOOLCALL =
      Pattern.compile("^@([\\w-]+)\\(([\\w\\-:.]+)\\):\\s*(\\{)", Pattern.MULTILINE);
  private static final Pattern XML =
      Pattern.compile(
          "<tool-use>\\s*<([\\w-]+)((?:\\s[^>]*)?)>(.*?)</\\1>\\s*</tool-use>", Pattern.DOTALL);
  private static final Pattern FENCE = Pattern.compile("^(`{3,})(.*)$");

  static List<Use> find(String content) {
    List<Use> uses = new ArrayList<>();
    if (content.indexOf('@') >= 0) {
      Matcher m = TOOLCALL.matcher(content);
      while (m.find()) {
        int end = jsonEnd(content, m.start(3));
        if (end > 0) {
          uses.add(new Use(m.group(1), m.group(2), content.substring(m.start(3), end), m.start()));
        }
      }
    }
    if (content.contains("<tool-use>")) {
      Matcher m = XML.matcher(content);
      while (m.find()) {
        String attrs = m.group(2).trim();
        uses.add(
            new Use(
                m.group(1),
                null,
                blockArguments(attrs.isEmpty() ? List.of() : List.of(attrs), strip(m.group(3))),
                m.start()));
      }
    }
    if (content.contains("```")) {
      findBlocks(content, uses);
    }
    uses.sort(Comparator.comparingInt(Use::position));
    return uses;
  }

  private static void findBlocks(String content, List<Use> uses) {
    // Lines with their start offsets.
    List<int[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= content.length(); i++) {
      if (i == content.length() || content.charAt(i) == '\n') {
        lines.add(new int[] {start, i});
        start = i + 1;
      }
    }
    int i = 0;
    while (i < lines.size()) {
      String line = text(content, lines.get(i));
      Matcher open = FENCE.matcher(line);
      if (!open.matches()) {
        i++;
        continue;
      }
      String info = open.group(2).trim();
      // Find the closing fence, counting nested fences that carry an info string.
      int depth = 1;
      int j = i + 1;
      for (; j < lines.size(); j++) {
        String l = text(content, lines.get(j)).strip();
        if (l.startsWith("```")) {
          String rest = l.replaceFirst("^`{3,}", "");
          if (rest.isBlank()) {
            depth--;
          } else {
            depth++;
          }
          if (depth == 0) {
            break;
          }
        }
      }
      if (j >= lines.size()) {
        return; // unclosed block: gptme does not run it
      }
      if (!info.isEmpty()) {
        String[] words = info.split("\\s+");
        String type = words[0];
        if (BLOCK_TYPES.contains(type)) {
          int bodyStart = i + 1 < j ? lines.get(i + 1)[0] : lines.get(j)[0];
          int bodyEnd = i + 1 < j ? lines.get(j - 1)[1] : bodyStart;
          String body = content.substring(bodyStart, bodyEnd);
          List<String> args = new ArrayList<>(List.of(words).subList(1, words.length));
          uses.add(new Use(type, null, blockArguments(args, body), lines.get(i)[0]));
        }
      }
      i = j + 1;
    }
  }

  private static String text(String content, int[] line) {
    return content.substring(line[0], line[1]);
  }

  private static String strip(String s) {
    return s.startsWith("\n") ? s.substring(1) : s;
  }

  static String blockArguments(List<String> args, String body) {
    ObjectNode o = Json.TRANSCRIPTS.createObjectNode();
    if (!args.isEmpty()) {
      ArrayNode a = o.putArray("args");
      args.forEach(a::add);
    }
    o.put("content", body);
    return Json.write(o);
  }

  /** End (exclusive) of the JSON object starting at {@code start}, or -1 when it never closes. */
  static int jsonEnd(String s, int start) {
    int depth = 0;
    boolean inString = false;
    boolean escape = false;
    for (int i = start; i < s.length(); i++) {
      char c = s.charAt(i);
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = inString;
      } else if (c == '"') {
        inString = !inString;
      } else if (!inString) {
        if (c == '{') {
          depth++;
        } else if (c == '}') {
          depth--;
          if (depth == 0) {
            return i + 1;
          }
        }
      }
    }
    return -1;
  }
}
