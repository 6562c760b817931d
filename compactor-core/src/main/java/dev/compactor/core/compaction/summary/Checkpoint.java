package dev.compactor.core.compaction.summary;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A structured checkpoint of the summarized part of a conversation: what the work is for, what was
 * decided, where it stands, what is left and which files to read again.
 *
 * <p>{@link #render()} writes markdown with the sections {@code ## Objective}, {@code ## Key
 * Decisions}, {@code ## Current State}, {@code ## Open Items}, {@code ## Context Files} (lines
 * {@code - `path` — reason}) and, when there are any, {@code ## Identifiers} (lines of up to
 * {@value #IDENTIFIERS_PER_LINE} identifiers, {@code - `a`, `b`, `c`}); {@link #parse} reads that
 * markdown back (and the looser variants a model writes), so {@code parse(render(c))} equals {@code
 * c}.
 *
 * <p>Values are normalized on construction: text is stripped, list items are single lines, blank
 * items and {@code (none)} are dropped, and {@code #}/{@code ##} headings inside free text are
 * demoted to {@code ###} so they cannot be mistaken for sections.
 *
 * @param objective the goal of the work, with the user's requests (verbatim where short)
 * @param decisions decisions and constraints, one per item
 * @param currentState where the work stands: latest progress and tool outcomes
 * @param openItems what is still to do or unanswered
 * @param filesToReload files worth reading again, with why
 * @param identifiers identifiers of the summarized span kept verbatim: those the recent messages
 *     rely on (added by verification) and an index of the others (see {@link
 *     dev.compactor.core.compaction.text.Identifiers#index})
 */
public record Checkpoint(
    String objective,
    List<String> decisions,
    String currentState,
    List<String> openItems,
    List<FileToReload> filesToReload,
    List<String> identifiers) {

  /** Placeholder rendered for an empty section. */
  static final String NONE = "(none)";

  /** Identifiers rendered per list item of the {@code Identifiers} section. */
  static final int IDENTIFIERS_PER_LINE = 16;

  /** The marker a checkpoint cut to fit a budget carries; {@link #parse} skips it. */
  public static final String CUT_MARKER = "[... checkpoint cut to fit the budget ...]";

  /**
   * A file worth reading again after the checkpoint.
   *
   * @param path the path as the conversation wrote it
   * @param reason why, e.g. "edited 3×, read 2×; last in m00040"; may be empty
   */
  public record FileToReload(String path, String reason) {
    public FileToReload {
      path = oneLine(stripTicks(Objects.requireNonNull(path, "path")));
      if (path.isEmpty()) {
        throw new IllegalArgumentException("a file to reload needs a path");
      }
      reason = reason == null ? "" : oneLine(reason);
    }
  }

  public Checkpoint {
    objective = text(objective);
    decisions = items(decisions);
    currentState = text(currentState);
    openItems = items(openItems);
    filesToReload = filesToReload == null ? List.of() : List.copyOf(filesToReload);
    // a set, not a list: a carried checkpoint with its index has thousands of identifiers
    Set<String> ids = new LinkedHashSet<>();
    for (String s : items(identifiers)) {
      String t = stripTicks(s);
      if (!t.isEmpty()) {
        ids.add(t);
      }
    }
    identifiers = List.copyOf(ids);
  }

  /** An empty checkpoint. */
  public static Checkpoint empty() {
    return new Checkpoint("", List.of(), "", List.of(), List.of(), List.of());
  }

  /** True when every section is empty. */
  public boolean isEmpty() {
    return objective.isEmpty()
        && decisions.isEmpty()
        && currentState.isEmpty()
        && openItems.isEmpty()
        && filesToReload.isEmpty()
        && identifiers.isEmpty();
  }

  /** This checkpoint with other identifiers. */
  public Checkpoint withIdentifiers(List<String> ids) {
    return new Checkpoint(objective, decisions, currentState, openItems, filesToReload, ids);
  }

  /** The markdown form (see the class comment). */
  public String render() {
    StringBuilder sb = new StringBuilder();
    sb.append("## Objective\n").append(objective.isEmpty() ? NONE : objective).append("\n\n");
    sb.append("## Key Decisions\n");
    list(sb, decisions);
    sb.append("\n## Current State\n")
        .append(currentState.isEmpty() ? NONE : currentState)
        .append("\n\n");
    sb.append("## Open Items\n");
    list(sb, openItems);
    sb.append("\n## Context Files\n");
    if (filesToReload.isEmpty()) {
      sb.append(NONE).append('\n');
    }
    for (FileToReload f : filesToReload) {
      sb.append("- `").append(f.path()).append('`');
      if (!f.reason().isEmpty()) {
        sb.append(" — ").append(f.reason());
      }
      sb.append('\n');
    }
    if (!identifiers.isEmpty()) {
      sb.append("\n## Identifiers\n");
      for (int i = 0; i < identifiers.size(); i += IDENTIFIERS_PER_LINE) {
        sb.append("- ");
        for (int j = i; j < Math.min(identifiers.size(), i + IDENTIFIERS_PER_LINE); j++) {
          if (j > i) {
            sb.append(", ");
          }
          sb.append('`').append(identifiers.get(j)).append('`');
        }
        sb.append('\n');
      }
    }
    return sb.toString().stripTrailing();
  }

  private static void list(StringBuilder sb, List<String> items) {
    if (items.isEmpty()) {
      sb.append(NONE).append('\n');
    }
    for (String s : items) {
      sb.append("- ").append(s).append('\n');
    }
  }

  private enum Section {
    OBJECTIVE,
    DECISIONS,
    STATE,
    OPEN,
    FILES,
    IDENTIFIERS
  }

  private static final Map<String, Section> SECTION_NAMES = new LinkedHashMap<>();

  static {
    names(Section.OBJECTIVE, "objective", "objectives", "goal", "goals", "task");
    names(
        Section.DECISIONS,
        "key decisions",
        "decisions",
        "decisions and constraints",
        "key decisions and constraints",
        "constraints");
    names(
        Section.STATE,
        "current state",
        "state",
        "work state",
        "progress",
        "status",
        "current status");
    names(
        Section.OPEN,
        "open items",
        "next steps",
        "next move",
        "next",
        "todo",
        "to do",
        "open questions",
        "remaining work");
    names(
        Section.FILES,
        "context files",
        "files to reload",
        "files to reload and why",
        "files",
        "relevant files",
        "key files");
    names(Section.IDENTIFIERS, "identifiers", "key identifiers");
  }

  /** Registers the (lower-case) heading titles that name {@code section}. */
  private static void names(Section section, String... titles) {
    for (String title : titles) {
      SECTION_NAMES.put(title, section);
    }
  }

  private static final Pattern SPACES = Pattern.compile("\\s+");
  private static final Pattern TITLE_PUNCTUATION = Pattern.compile("[*_:.]+");
  private static final Pattern SECTION_HEADING = Pattern.compile("(?m)^#{1,2}(\\s)");
  private static final Pattern LINE_BREAK = Pattern.compile("\\s*\\R\\s*");
  private static final Pattern HEADING = Pattern.compile("^#{1,2}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern BULLET = Pattern.compile("^\\s*(?:[-*+]|\\d{1,3}[.)])\\s+(.*)$");
  private static final Pattern FILE_TICKED =
      Pattern.compile("^`([^`]+)`\\s*(?:(?:—|–|--|-|:)\\s*(.*))?$");
  private static final Pattern FILE_PLAIN = Pattern.compile("^(\\S+)\\s+(?:—|–|--|-)\\s+(.*)$");

  /**
   * Reads checkpoint markdown: {@code #} or {@code ##} headings name the sections (case does not
   * matter; "Goal", "Decisions", "Next Steps", "Files to reload" and similar variants are
   * recognised), text before the first heading is ignored, and sections with other names are kept
   * in the current state under a {@code ###} heading. Lenient: never fails; text without any
   * heading gives a checkpoint whose current state is that text.
   */
  public static Checkpoint parse(String markdown) {
    if (markdown == null || markdown.isBlank()) {
      return empty();
    }
    Map<Section, List<String>> body = new LinkedHashMap<>();
    List<String> extra = new ArrayList<>();
    List<String> current = null;
    boolean anyHeading = false;
    for (String line : markdown.split("\r?\n", -1)) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        anyHeading = true;
        String title = h.group(1).strip();
        String key =
            SPACES
                .matcher(TITLE_PUNCTUATION.matcher(title.toLowerCase(Locale.ROOT)).replaceAll(" "))
                .replaceAll(" ");
        Section s = SECTION_NAMES.get(key.strip());
        if (s == null) {
          extra.add("");
          extra.add("### " + title);
          current = extra;
        } else {
          current = body.computeIfAbsent(s, k -> new ArrayList<>());
        }
        continue;
      }
      if (current != null && !line.strip().equals(CUT_MARKER)) {
        current.add(line);
      }
    }
    if (!anyHeading) {
      return new Checkpoint("", List.of(), markdown, List.of(), List.of(), List.of());
    }
    String state = join(body.get(Section.STATE));
    String extraText = String.join("\n", extra).strip();
    if (!extraText.isEmpty()) {
      state = state.isEmpty() ? extraText : state + "\n\n" + extraText;
    }
    List<FileToReload> files = new ArrayList<>();
    for (String item : listItems(body.get(Section.FILES))) {
      FileToReload f = file(item);
      if (f != null) {
        files.add(f);
      }
    }
    return new Checkpoint(
        join(body.get(Section.OBJECTIVE)),
        listItems(body.get(Section.DECISIONS)),
        state,
        listItems(body.get(Section.OPEN)),
        files,
        identifierItems(listItems(body.get(Section.IDENTIFIERS))));
  }

  /** Items that list several identifiers ({@code `a`, `b`}) split into one item per identifier. */
  private static List<String> identifierItems(List<String> items) {
    List<String> out = new ArrayList<>();
    for (String item : items) {
      String t = item.strip();
      if (t.length() > 2 && t.startsWith("`") && t.endsWith("`") && t.contains("`, `")) {
        for (String id : t.substring(1, t.length() - 1).split("`, `", -1)) {
          out.add(id);
        }
      } else {
        out.add(item);
      }
    }
    return out;
  }

  private static FileToReload file(String item) {
    Matcher t = FILE_TICKED.matcher(item);
    if (t.matches()) {
      return new FileToReload(t.group(1), t.group(2));
    }
    Matcher p = FILE_PLAIN.matcher(item);
    if (p.matches()) {
      return new FileToReload(p.group(1), p.group(2));
    }
    return item.isBlank() ? null : new FileToReload(item, "");
  }

  private static String join(List<String> lines) {
    if (lines == null) {
      return "";
    }
    String s = String.join("\n", lines).strip();
    return s.equals(NONE) ? "" : s;
  }

  /** Bulleted items; continuation lines join the item before; other paragraphs are items. */
  private static List<String> listItems(List<String> lines) {
    List<String> out = new ArrayList<>();
    if (lines == null) {
      return out;
    }
    StringBuilder item = null;
    for (String line : lines) {
      if (line.isBlank()) {
        flush(out, item);
        item = null;
        continue;
      }
      Matcher b = BULLET.matcher(line);
      if (b.matches()) {
        flush(out, item);
        item = new StringBuilder(b.group(1).strip());
      } else if (item != null) {
        item.append(' ').append(line.strip());
      } else {
        item = new StringBuilder(line.strip());
      }
    }
    flush(out, item);
    return out;
  }

  private static void flush(List<String> out, StringBuilder item) {
    if (item != null) {
      String s = item.toString().strip();
      if (!s.isEmpty() && !s.equals(NONE)) {
        out.add(s);
      }
    }
  }

  private static String text(String s) {
    if (s == null) {
      return "";
    }
    String t = s.replace("\r\n", "\n").strip();
    if (t.equals(NONE)) {
      return "";
    }
    // demote headings that would read as sections
    return SECTION_HEADING.matcher(t).replaceAll("###$1");
  }

  private static List<String> items(List<String> in) {
    if (in == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>(in.size());
    for (String s : in) {
      if (s == null) {
        continue;
      }
      String t = oneLine(s);
      if (!t.isEmpty() && !t.equals(NONE)) {
        out.add(t);
      }
    }
    return List.copyOf(out);
  }

  static String oneLine(String s) {
    String t = s.strip();
    return hasLineBreak(t) ? LINE_BREAK.matcher(t).replaceAll(" ") : t;
  }

  /** Whether {@code s} has a character {@code \R} matches (most items, identifiers, have none). */
  private static boolean hasLineBreak(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if ((c >= '\n' && c <= '\r') || c == '\u0085' || c == '\u2028' || c == '\u2029') {
        return true;
      }
    }
    return false;
  }

  private static String stripTicks(String s) {
    String t = s.strip();
    if (t.length() >= 2 && t.startsWith("`") && t.endsWith("`")) {
      t = t.substring(1, t.length() - 1).strip();
    }
    return t;
  }
}
