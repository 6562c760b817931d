package dev.compactor.core.compaction.summary;

import dev.compactor.core.compaction.text.Sentences;
import dev.compactor.core.compaction.text.TextFeatures;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The offline summarizer: builds a {@link Checkpoint} from the messages themselves, with no model.
 * Deterministic (the same input gives the same checkpoint) and linear in the text.
 *
 * <ul>
 *   <li><b>Objective</b>: the first user request and the latest one, verbatim up to 600 characters
 *       (longer ones are clipped at a sentence boundary), plus up to 6 requests in between,
 *       shorter. A previous checkpoint's first request is kept.
 *   <li><b>Key decisions</b>: assistant sentences that state a decision ("decided", "will use",
 *       "instead of", "chose", …) and user sentences that state a decision or constraint ("must",
 *       "should", "never", "only", …), newest kept; the previous checkpoint's decisions first.
 *   <li><b>Current state</b>: the latest assistant prose, the outcomes of the latest tool results
 *       (error lines, test and build results), sentences matching the instructions' key words, and
 *       the previous checkpoint's state, shortened.
 *   <li><b>Open items</b>: sentences with TODO, "next step", "still fails", "not yet", "I will", …
 *       and user requests no final answer followed; the previous checkpoint's items first.
 *   <li><b>Context files</b>: paths from tool call arguments, tool results and prose, ranked by
 *       edits (×3), reads (×2), mentions in prose, mentions in tool outputs (×0.25; a file named by
 *       only one output is left out) and recency, with a reason such as {@code edited 3×, read 2×;
 *       last in m00040}; the previous checkpoint's files fill up the list.
 * </ul>
 *
 * The automatic policy's context notice (its 90 % reminder, a user message marked {@value
 * #CONTEXT_NOTICE_KEY}) is not a request of the user and is left out.
 */
public final class ExtractiveSummarizer implements Summarizer {
  static final int REQUEST_CHARS = 600;
  static final int OTHER_REQUEST_CHARS = 200;
  static final int OTHER_REQUESTS = 6;
  static final int SENTENCE_CHARS = 300;
  static final int NEW_DECISIONS = 12;
  static final int MAX_DECISIONS = 20;
  static final int NEW_OPEN_ITEMS = 8;
  static final int MAX_OPEN_ITEMS = 12;
  static final int MAX_FILES = 10;
  static final int RECENT_OUTCOMES = 6;
  static final int FOCUS_SENTENCES = 5;

  private static final int SCAN_CHARS = 8000;
  private static final Pattern FENCED = Pattern.compile("(?ms)^\\s*```.*?(?:^\\s*```[^\\n]*$|\\z)");

  /** Markers of test and build results (error words are found by {@link TextFeatures}). */
  private static final String[] OUTCOME_MARKERS = {
    "BUILD ", "Tests run", "Test run", "passed", "PASSED", "PASS", "FAIL", "OK (", "SUCCESS"
  };

  private static final Pattern WORD = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{3,}");
  private static final Set<String> STOP_WORDS =
      Set.of(
          "always",
          "never",
          "note",
          "notes",
          "focus",
          "please",
          "about",
          "with",
          "that",
          "this",
          "from",
          "make",
          "sure",
          "keep",
          "into",
          "also",
          "what",
          "when",
          "which",
          "should",
          "must",
          "their",
          "them",
          "they",
          "then",
          "than",
          "there",
          "these",
          "those",
          "would",
          "could",
          "current",
          "summary",
          "summarize",
          "checkpoint",
          "include",
          "mention");

  public ExtractiveSummarizer() {}

  @Override
  public String name() {
    return "extractive";
  }

  @Override
  public Checkpoint summarize(List<Message> covered, Checkpoint previous, String instructions) {
    List<Message> msgs = new ArrayList<>(covered.size());
    Map<String, ToolCall> calls = new HashMap<>();
    for (Message m : covered) {
      if (m.uiOnly() || isContextNotice(m)) {
        continue;
      }
      msgs.add(m);
      for (ToolCall c : m.toolCalls()) {
        calls.put(c.id(), c);
      }
    }
    Set<Message> quoted = new HashSet<>();
    String objective = objective(msgs, previous, quoted);
    return new Checkpoint(
        objective,
        decisions(msgs, previous, quoted),
        state(msgs, previous, calls, instructions),
        openItems(msgs, previous),
        files(msgs, previous),
        List.of());
  }

  /**
   * Metadata key of the automatic policy's context notice (the 90 % reminder, {@code
   * AutoCompactor.REMINDER_KEY}): a message of the context manager, not a request of the user, so
   * it is neither the objective nor an open item.
   */
  static final String CONTEXT_NOTICE_KEY = "compaction_reminder_view";

  private static boolean isContextNotice(Message m) {
    return m.role() == Role.USER && m.metadata().extra().containsKey(CONTEXT_NOTICE_KEY);
  }

  // ---------------------------------------------------------------- objective

  private static String objective(List<Message> msgs, Checkpoint previous, Set<Message> quoted) {
    List<Message> users = new ArrayList<>();
    for (Message m : msgs) {
      if (m.role() == Role.USER && !m.content().isBlank()) {
        users.add(m);
      }
    }
    String prev = previous == null ? "" : previous.objective();
    if (users.isEmpty()) {
      return prev;
    }
    StringBuilder sb = new StringBuilder();
    Message last = users.get(users.size() - 1);
    int from;
    if (!prev.isEmpty()) {
      int cut = prev.indexOf("\n\nOther requests:");
      int latest = prev.indexOf("\n\nLatest request");
      int end = prev.length();
      if (cut >= 0) {
        end = Math.min(end, cut);
      }
      if (latest >= 0) {
        end = Math.min(end, latest);
      }
      sb.append(prev, 0, end);
      from = 0;
    } else {
      Message first = users.get(0);
      sb.append("First request (").append(first.id()).append("): ");
      sb.append(clip(first.content(), REQUEST_CHARS));
      if (first.content().strip().length() <= REQUEST_CHARS) {
        quoted.add(first);
      }
      from = 1;
    }
    List<Message> between =
        users.size() - 1 > from ? users.subList(from, users.size() - 1) : List.of();
    // distinct requests in between, the latest occurrence of each, newest kept
    LinkedHashMap<String, String> others = new LinkedHashMap<>();
    String firstText = norm(users.get(0).content());
    String lastText = norm(last.content());
    for (Message m : between) {
      String key = norm(m.content());
      if (!key.equals(lastText) && !(from == 1 && key.equals(firstText))) {
        putLast(
            others,
            key,
            "(" + m.id() + ") " + Checkpoint.oneLine(clip(m.content(), OTHER_REQUEST_CHARS)));
      }
    }
    if (!others.isEmpty()) {
      sb.append("\n\nOther requests:");
      int omitted = Math.max(0, others.size() - OTHER_REQUESTS);
      if (omitted > 0) {
        sb.append("\n- (").append(omitted).append(" earlier requests omitted)");
      }
      for (String o : last(new ArrayList<>(others.values()), OTHER_REQUESTS)) {
        sb.append("\n- ").append(o);
      }
    }
    if (from == 0 || users.size() > 1) {
      sb.append("\n\nLatest request (").append(last.id()).append("): ");
      sb.append(clip(last.content(), REQUEST_CHARS));
      if (last.content().strip().length() <= REQUEST_CHARS) {
        quoted.add(last);
      }
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------- decisions

  private static List<String> decisions(
      List<Message> msgs, Checkpoint previous, Set<Message> quoted) {
    LinkedHashMap<String, String> found = new LinkedHashMap<>();
    for (Message m : msgs) {
      boolean user = m.role() == Role.USER;
      if (!(user || m.role() == Role.ASSISTANT) || (user && quoted.contains(m))) {
        continue;
      }
      for (String s : sentences(m.content())) {
        if (Sentences.isDecision(s) || (user && Sentences.isConstraint(s))) {
          String text = (user ? "User: " : "") + clip(s, SENTENCE_CHARS);
          putLast(found, norm(text), text);
        }
      }
    }
    List<String> fresh = last(new ArrayList<>(found.values()), NEW_DECISIONS);
    return merge(previous == null ? List.of() : previous.decisions(), fresh, MAX_DECISIONS);
  }

  // ---------------------------------------------------------------- current state

  private static String state(
      List<Message> msgs, Checkpoint previous, Map<String, ToolCall> calls, String instructions) {
    StringBuilder sb = new StringBuilder();
    for (int i = msgs.size() - 1; i >= 0; i--) {
      Message m = msgs.get(i);
      String prose = m.role() == Role.ASSISTANT ? prose(m.content()).strip() : "";
      if (!prose.isEmpty()) {
        LinkedHashMap<String, String> distinct = new LinkedHashMap<>();
        for (String sentence : sentences(prose)) {
          distinct.putIfAbsent(norm(sentence), sentence);
        }
        sb.append("Latest progress (")
            .append(m.id())
            .append("): ")
            .append(Checkpoint.oneLine(clip(String.join(" ", distinct.values()), 700)));
        break;
      }
    }
    List<Message> results = new ArrayList<>();
    for (int i = msgs.size() - 1; i >= 0 && results.size() < RECENT_OUTCOMES; i--) {
      if (msgs.get(i).role() == Role.TOOL) {
        results.add(0, msgs.get(i));
      }
    }
    if (!results.isEmpty()) {
      paragraph(sb).append("Latest tool outcomes:");
      for (Message r : results) {
        sb.append("\n- ");
        ToolCall c = calls.get(r.toolCallId());
        if (c != null) {
          sb.append('`').append(describe(c)).append("` ");
        }
        sb.append('(').append(r.id()).append("): ").append(outcome(r.content()));
      }
    }
    if (instructions != null && !instructions.isBlank()) {
      paragraph(sb)
          .append("Instructions for this checkpoint: ")
          .append(Checkpoint.oneLine(clip(instructions, 300)));
      List<String> focus = focus(msgs, instructions);
      for (String s : focus) {
        sb.append("\n- ").append(s);
      }
    }
    int users = 0;
    int assistants = 0;
    int tools = 0;
    for (Message m : msgs) {
      switch (m.role()) {
        case USER -> users++;
        case ASSISTANT -> assistants++;
        case TOOL -> tools++;
        default -> {}
      }
    }
    if (!msgs.isEmpty()) {
      paragraph(sb)
          .append("Summarized ")
          .append(msgs.size())
          .append(" messages (")
          .append(msgs.get(0).id())
          .append(" to ")
          .append(msgs.get(msgs.size() - 1).id())
          .append("): ")
          .append(users)
          .append(" user, ")
          .append(assistants)
          .append(" assistant, ")
          .append(tools)
          .append(" tool results.");
    }
    if (previous != null && !previous.currentState().isEmpty()) {
      paragraph(sb)
          .append("Earlier state (previous checkpoint): ")
          .append(Checkpoint.oneLine(clip(previous.currentState(), 600)));
    }
    return sb.toString();
  }

  private static StringBuilder paragraph(StringBuilder sb) {
    if (sb.length() > 0) {
      sb.append("\n\n");
    }
    return sb;
  }

  /** Error, test and build lines of a tool output (at most 3), else its first line. */
  static String outcome(String content) {
    String scan = content.length() > 2 * SCAN_CHARS ? headAndTail(content, SCAN_CHARS) : content;
    List<String> picked = new ArrayList<>();
    String firstLine = null;
    for (String line : scan.split("\n")) {
      String t = line.strip();
      if (t.isEmpty()) {
        continue;
      }
      if (firstLine == null) {
        firstLine = t;
      }
      if (TextFeatures.containsErrorWord(t) || isOutcome(t)) {
        String c = clip(t, 160);
        if (!picked.contains(c)) {
          picked.add(c);
        }
        if (picked.size() >= 3) {
          break;
        }
      }
    }
    int lines = 1;
    for (int i = 0; i < content.length(); i++) {
      if (content.charAt(i) == '\n') {
        lines++;
      }
    }
    String text;
    if (!picked.isEmpty()) {
      text = String.join(" | ", picked);
    } else {
      text = firstLine == null ? "(empty output)" : clip(firstLine, 160);
    }
    return lines > 3 ? text + " (" + lines + " lines)" : text;
  }

  private static boolean isOutcome(String line) {
    for (String marker : OUTCOME_MARKERS) {
      if (line.contains(marker)) {
        return true;
      }
    }
    return false;
  }

  private static List<String> focus(List<Message> msgs, String instructions) {
    Set<String> keys = new LinkedHashSet<>();
    Matcher w = WORD.matcher(instructions);
    while (w.find()) {
      String k = w.group().toLowerCase(Locale.ROOT);
      if (!STOP_WORDS.contains(k)) {
        keys.add(k);
      }
    }
    if (keys.isEmpty()) {
      return List.of();
    }
    LinkedHashMap<String, String> found = new LinkedHashMap<>();
    for (Message m : msgs) {
      if (m.role() != Role.ASSISTANT && m.role() != Role.USER) {
        continue;
      }
      for (String s : sentences(m.content())) {
        String lower = s.toLowerCase(Locale.ROOT);
        for (String k : keys) {
          if (lower.contains(k)) {
            String text = clip(s, SENTENCE_CHARS);
            putLast(found, norm(text), text);
            break;
          }
        }
      }
    }
    return last(new ArrayList<>(found.values()), FOCUS_SENTENCES);
  }

  // ---------------------------------------------------------------- open items

  private static List<String> openItems(List<Message> msgs, Checkpoint previous) {
    LinkedHashMap<String, String> found = new LinkedHashMap<>();
    int lastAnswer = -1;
    for (int i = 0; i < msgs.size(); i++) {
      Message m = msgs.get(i);
      if (m.role() == Role.ASSISTANT && !m.hasToolCalls() && !m.content().isBlank()) {
        lastAnswer = i;
      }
      if (m.role() != Role.ASSISTANT && m.role() != Role.USER) {
        continue;
      }
      for (String s : sentences(m.content())) {
        if (Sentences.isOpenItem(s)) {
          String text = clip(s, SENTENCE_CHARS);
          putLast(found, norm(text), text);
        }
      }
    }
    List<String> fresh = last(new ArrayList<>(found.values()), NEW_OPEN_ITEMS);
    List<String> unanswered = new ArrayList<>();
    for (int i = lastAnswer + 1; i < msgs.size(); i++) {
      Message m = msgs.get(i);
      if (m.role() == Role.USER && !m.content().isBlank()) {
        unanswered.add(
            "Unanswered request ("
                + m.id()
                + "): "
                + Checkpoint.oneLine(clip(m.content(), SENTENCE_CHARS)));
      }
    }
    fresh.addAll(last(unanswered, 3));
    return merge(previous == null ? List.of() : previous.openItems(), fresh, MAX_OPEN_ITEMS);
  }

  // ---------------------------------------------------------------- files

  private static final class FileStat {
    final String path;
    int edits;
    int reads;
    int mentions;
    int outputMentions;
    int lastPos;
    String lastId;

    FileStat(String path) {
      this.path = path;
    }

    /** Used, or named in prose, or named by at least two tool outputs. */
    boolean worthListing() {
      return edits + reads + mentions > 0 || outputMentions >= 2;
    }

    double score(int size) {
      double recency = 4.0 * (lastPos + 1) / Math.max(1, size);
      return 3.0 * edits
          + 2.0 * reads
          + mentions
          + 0.25 * outputMentions
          + (edits + reads + mentions > 0 ? recency : recency / 4);
    }

    String reason() {
      List<String> parts = new ArrayList<>();
      if (edits > 0) {
        parts.add("edited " + edits + "×");
      }
      if (reads > 0) {
        parts.add("read " + reads + "×");
      }
      if (mentions > 0) {
        parts.add("mentioned " + mentions + "×");
      }
      if (outputMentions > 0) {
        parts.add("in tool output " + outputMentions + "×");
      }
      return String.join(", ", parts) + "; last in " + lastId;
    }
  }

  private enum Use {
    EDIT,
    READ,
    MENTION,
    OUTPUT
  }

  private static List<Checkpoint.FileToReload> files(List<Message> msgs, Checkpoint previous) {
    Map<String, FileStat> stats = new LinkedHashMap<>();
    for (int pos = 0; pos < msgs.size(); pos++) {
      Message m = msgs.get(pos);
      final int p = pos;
      for (ToolCall c : m.toolCalls()) {
        Use use = useOf(c.name());
        TextFeatures.forEachFilePath(c.arguments(), false, path -> note(stats, path, use, p, m));
      }
      String text = m.content();
      if (m.role() == Role.TOOL && text.length() > SCAN_CHARS) {
        text = headAndTail(text, SCAN_CHARS / 2);
      }
      if (m.role() != Role.SYSTEM) {
        Set<String> seen = new HashSet<>();
        Use use = m.role() == Role.TOOL ? Use.OUTPUT : Use.MENTION;
        TextFeatures.forEachFilePath(
            text,
            false,
            path -> {
              if (seen.add(path)) {
                note(stats, path, use, p, m);
              }
            });
      }
    }
    List<FileStat> ranked = new ArrayList<>();
    for (FileStat f : stats.values()) {
      if (f.worthListing()) {
        ranked.add(f);
      }
    }
    int size = msgs.size();
    ranked.sort(
        Comparator.comparingDouble((FileStat f) -> -f.score(size))
            .thenComparing(f -> -f.lastPos)
            .thenComparing(f -> f.path));
    List<Checkpoint.FileToReload> out = new ArrayList<>();
    Set<String> paths = new HashSet<>();
    for (FileStat f : ranked) {
      if (out.size() >= MAX_FILES) {
        break;
      }
      out.add(new Checkpoint.FileToReload(f.path, f.reason()));
      paths.add(f.path);
    }
    if (previous != null) {
      for (Checkpoint.FileToReload f : previous.filesToReload()) {
        if (out.size() >= MAX_FILES) {
          break;
        }
        if (paths.add(f.path())) {
          out.add(f);
        }
      }
    }
    return out;
  }

  /** System directories whose files an agent runs or reads but never works on. */
  private static final List<String> SYSTEM_DIRS =
      List.of(
          "/usr/bin/",
          "/usr/sbin/",
          "/usr/local/bin/",
          "/bin/",
          "/sbin/",
          "/dev/",
          "/proc/",
          "/sys/");

  /**
   * {@code path} as a file worth reloading, or null for noise: a bare extension ({@code .py}), a
   * system executable or device ({@code /usr/bin/env}, {@code /dev/null}); a diff's {@code a/} or
   * {@code b/} prefix is dropped ({@code a/src/x.py} is {@code src/x.py}).
   */
  static String reloadable(String path) {
    String p = path;
    if ((p.startsWith("a/") || p.startsWith("b/")) && p.length() > 2) {
      p = p.substring(2);
    }
    if (p.startsWith(".") && p.indexOf('/') < 0 && p.lastIndexOf('.') == 0) {
      return null; // ".py": an extension, not a file
    }
    for (String dir : SYSTEM_DIRS) {
      if (p.startsWith(dir)) {
        return null;
      }
    }
    return p;
  }

  private static void note(Map<String, FileStat> stats, String raw, Use use, int pos, Message m) {
    String path = reloadable(raw);
    if (path == null) {
      return;
    }
    FileStat f = stats.computeIfAbsent(path, FileStat::new);
    switch (use) {
      case EDIT -> f.edits++;
      case READ -> f.reads++;
      case OUTPUT -> f.outputMentions++;
      default -> f.mentions++;
    }
    f.lastPos = pos;
    f.lastId = m.id().value();
  }

  private static Use useOf(String toolName) {
    String n = toolName.toLowerCase(Locale.ROOT);
    for (String k :
        List.of(
            "edit", "write", "patch", "save", "append", "create", "replace", "insert", "morph",
            "apply", "update", "delete", "remove", "rename", "move")) {
      if (n.contains(k)) {
        return Use.EDIT;
      }
    }
    for (String k :
        List.of("read", "cat", "view", "open", "head", "tail", "grep", "search", "find", "glob")) {
      if (n.contains(k)) {
        return Use.READ;
      }
    }
    return Use.MENTION;
  }

  // ---------------------------------------------------------------- text helpers

  /**
   * About {@code chars} characters from each end of a long text, cut at whitespace so that no path
   * or word is split, joined by a line break.
   */
  static String headAndTail(String text, int chars) {
    int headEnd = chars;
    while (headEnd > 0 && !Character.isWhitespace(text.charAt(headEnd))) {
      headEnd--;
    }
    int tailStart = text.length() - chars;
    while (tailStart < text.length() && !Character.isWhitespace(text.charAt(tailStart - 1))) {
      tailStart++;
    }
    return text.substring(0, headEnd) + "\n" + text.substring(tailStart);
  }

  /** The prose of a message: fenced code blocks removed. */
  static String prose(String content) {
    return content.contains("```") ? FENCED.matcher(content).replaceAll("") : content;
  }

  /** The sentences of a message's prose, line by line. */
  static List<String> sentences(String content) {
    List<String> out = new ArrayList<>();
    for (String line : prose(content).split("\n")) {
      if (!line.isBlank()) {
        out.addAll(Sentences.split(line));
      }
    }
    return out;
  }

  /** The text itself when short enough, else its first sentences up to {@code max} and "[…]". */
  static String clip(String text, int max) {
    String t = text.strip();
    if (t.length() <= max) {
      return t;
    }
    StringBuilder sb = new StringBuilder();
    for (String s : Sentences.split(t.substring(0, Math.min(t.length(), max * 2)))) {
      if (sb.length() + s.length() + 1 > max) {
        break;
      }
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append(s);
    }
    if (sb.length() == 0) {
      int end = max;
      if (Character.isHighSurrogate(t.charAt(end - 1))) {
        end--;
      }
      sb.append(t, 0, end);
    }
    return sb.append(" […]").toString();
  }

  private static String describe(ToolCall c) {
    String args = c.arguments();
    if (args.length() > 200) {
      args = args.substring(0, 200);
    }
    String text =
        (c.name() + " " + SPACES.matcher(args).replaceAll(" ").replace('`', '\'')).strip();
    if (text.length() > 100) {
      int end = 100;
      if (Character.isHighSurrogate(text.charAt(end - 1))) {
        end--;
      }
      text = text.substring(0, end) + "…";
    }
    return text;
  }

  private static final Pattern SPACES = Pattern.compile("\\s+");
  private static final Pattern END_PUNCTUATION = Pattern.compile("[.!?]+$");

  /** The key two sentences share when they say the same: lower case, spaces and end normalized. */
  private static String norm(String s) {
    String t = SPACES.matcher(s.toLowerCase(Locale.ROOT)).replaceAll(" ");
    return END_PUNCTUATION.matcher(t).replaceAll("").strip();
  }

  /** Puts or moves an entry to the end (the most recent occurrence counts). */
  private static void putLast(LinkedHashMap<String, String> map, String key, String value) {
    map.remove(key);
    map.put(key, value);
  }

  private static <T> List<T> last(List<T> list, int n) {
    return new ArrayList<>(list.subList(Math.max(0, list.size() - n), list.size()));
  }

  /** Previous items first, then new ones, without repeats; the last {@code max} are kept. */
  private static List<String> merge(List<String> previous, List<String> fresh, int max) {
    LinkedHashMap<String, String> all = new LinkedHashMap<>();
    for (String s : previous) {
      all.putIfAbsent(norm(s), s);
    }
    for (String s : fresh) {
      putLast(all, norm(s), s);
    }
    return last(new ArrayList<>(all.values()), max);
  }
}
