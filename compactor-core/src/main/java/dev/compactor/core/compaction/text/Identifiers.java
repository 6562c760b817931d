package dev.compactor.core.compaction.text;

import dev.compactor.core.compaction.text.TextFeatures.IdentifierKind;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.TokenCounter;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The one place that finds names in text: every identifier a text or a message names, as
 * compactions that keep identifiers see them — the typed identifiers (file paths, error names, tool
 * call ids, issue numbers, quoted strings, numbers of 4+ digits: {@link #forEachTyped}), the code
 * names (defined, called, CamelCase and snake_case names: {@link #forEachCodeName}), the bounded
 * mentions a placeholder keeps ({@link #mentions}, {@link #codeNames}) and the identifier index of
 * a checkpoint ({@link #index}).
 *
 * <p>One cache: the distinct identifiers of a message ({@link #of}), remembered per message; the
 * index, the trim stubs and the mask placeholders all ask it. Everything else is a pure function of
 * its input. Thread-safe.
 */
public final class Identifiers {
  private Identifiers() {}

  /** Longest identifier kept by a compaction; longer ones are sentences, not names. */
  public static final int MAX_LENGTH = 80;

  /**
   * Calls {@code sink} for every identifier of {@code text}, in order, repeats included.
   *
   * @param text never null
   */
  public static void forEach(String text, Consumer<String> sink) {
    if (text.isEmpty()) {
      return;
    }
    TextFeatures.forEachIdentifier(
        text,
        true,
        (id, kind) -> {
          if (kind != IdentifierKind.CALL_ID) {
            sink.accept(id);
          }
        });
    CodeNames.forEach(text, (name, kind) -> sink.accept(name));
  }

  /**
   * Calls {@code sink} for every identifier of a message: its content, reasoning, and tool calls
   * (name and arguments; JSON string escapes in the arguments are undone first). Nothing for a
   * {@code uiOnly} message.
   */
  public static void forEach(Message m, Consumer<String> sink) {
    if (m.uiOnly()) {
      return;
    }
    forEach(m.content(), sink);
    for (ReasoningBlock r : m.reasoning()) {
      if (r.text() != null) {
        forEach(r.text(), sink);
      }
    }
    for (ToolCall c : m.toolCalls()) {
      if (c.name() != null && !c.name().isEmpty()) {
        forEach(c.name() + "(", sink);
      }
      if (c.arguments() != null) {
        arguments(c.arguments(), sink);
      }
    }
  }

  /**
   * The distinct identifiers of a message (as {@link #forEach(Message, Consumer)} finds them), in
   * order of first appearance; empty for a {@code uiOnly} message. Remembered per message (a weak
   * map, like token counts): the strategies ask again for the same messages — a checkpoint's span
   * was the kept tail of the previous one, a placeholder's view is mostly the last view — and
   * scanning a long log for names costs far more than a lookup.
   */
  public static List<String> of(Message m) {
    synchronized (BY_MESSAGE) {
      List<String> known = BY_MESSAGE.get(m);
      if (known != null) {
        return known;
      }
    }
    Set<String> ids = new LinkedHashSet<>();
    forEach(m, ids::add);
    List<String> list = List.copyOf(ids);
    synchronized (BY_MESSAGE) {
      BY_MESSAGE.put(m, list);
    }
    return list;
  }

  private static final Map<Message, List<String>> BY_MESSAGE = new WeakHashMap<>();

  /**
   * Forgets every remembered message (see {@link #of}): for a process that wants the memory back at
   * once rather than when its messages are collected, and for benchmarks that measure a first
   * compaction.
   */
  public static void forgetAll() {
    synchronized (BY_MESSAGE) {
      BY_MESSAGE.clear();
    }
  }

  /**
   * Calls {@code sink} for every typed identifier of a text (file paths, error type names, tool
   * call ids, issue numbers, quoted strings of 3-80 characters on one line that are not JSON keys,
   * numbers of four or more digits), in order, repeats included.
   *
   * @param quoted whether to look for quoted strings (off for JSON arguments, whose quoted keys and
   *     values are noise)
   */
  public static void forEachTyped(
      String text, boolean quoted, BiConsumer<String, IdentifierKind> sink) {
    TextFeatures.forEachIdentifier(text, quoted, sink);
  }

  /**
   * Adds the typed identifiers of a text to {@code sink} (see {@link #forEachTyped}); an identifier
   * already there keeps its position and the more important of the two kinds.
   */
  public static void typed(String text, boolean quoted, Map<String, IdentifierKind> sink) {
    TextFeatures.identifiers(text, quoted, sink);
  }

  /** The typed identifiers of a text, quoted strings included: identifier to kind, in order. */
  public static Map<String, IdentifierKind> typed(String text) {
    return TextFeatures.identifiers(text);
  }

  /**
   * Calls {@code sink} for every code name of a text — a name of 3+ letters, digits and {@code _}
   * that is defined ({@code def}, {@code class}, …), called ({@code name(}), CamelCase with two or
   * more capitals, or snake_case; keywords, ubiquitous built-ins and tool call ids left out — in
   * order, repeats included.
   */
  public static void forEachCodeName(String text, Consumer<String> sink) {
    CodeNames.forEach(text, (name, kind) -> sink.accept(name));
  }

  /**
   * At most {@code max} identifiers a tool output names, most useful kinds first: exception and
   * error names, test names, file paths (with line numbers), ids; each at most {@value #MAX_LENGTH}
   * characters. Of a very long text only its head and tail are read.
   */
  public static List<String> mentions(String text, int max) {
    return Mentions.of(text, max);
  }

  /**
   * At most {@code max} code names of {@code text} that are not in {@code exclude}: names it
   * defines first, then the others by how often it uses them, then by first occurrence. Read like
   * {@link #mentions}.
   */
  public static List<String> codeNames(String text, int max, Set<String> exclude) {
    return Mentions.names(text, max, exclude);
  }

  /** Share of the limit a checkpoint's identifier index may take. */
  public static final double INDEX_LIMIT_SHARE = IdentifierIndex.LIMIT_SHARE;

  /** Tokens a checkpoint's identifier index may take without a limit. */
  public static final int INDEX_DEFAULT_TOKENS = IdentifierIndex.DEFAULT_TOKENS;

  /**
   * The identifier index of a checkpoint: the identifiers the summarized span used that neither
   * {@code namedIds}, {@code namedText} nor the kept messages name, ranked by use and recency and
   * bounded by a token budget; deterministic.
   *
   * @param namedIds identifiers already named (e.g. the checkpoint's verified ones)
   * @param namedText text whose identifiers count as named (e.g. the checkpoint so far)
   * @param covered the summarized messages, oldest first
   * @param kept the messages the new view keeps besides the checkpoint
   * @param budgetTokens tokens the rendered index may take
   * @param counter counts the index
   * @return the identifiers to list, best first; empty when nothing fits
   */
  public static List<String> index(
      Collection<String> namedIds,
      String namedText,
      List<Message> covered,
      List<Message> kept,
      long budgetTokens,
      TokenCounter counter) {
    return IdentifierIndex.build(namedIds, namedText, covered, kept, budgetTokens, counter);
  }

  /** Whether a compaction can list {@code id} in backticks on one line. */
  public static boolean listable(String id) {
    if (id.length() < 3 || id.length() > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c == '`' || c == '\n' || c == '\r') {
        return false;
      }
    }
    return !id.isBlank();
  }

  /**
   * The identifiers of tool call arguments: of each string value (escapes undone; object keys are
   * not values) and of the text between strings (numbers), when they are a JSON object or array;
   * else of the text as it is.
   */
  static void arguments(String args, Consumer<String> sink) {
    String t = args.strip();
    if (!(t.startsWith("{") || t.startsWith("["))) {
      forEach(args, sink);
      return;
    }
    int n = t.length();
    int i = 0;
    StringBuilder between = new StringBuilder();
    while (i < n) {
      char c = t.charAt(i);
      if (c != '"') {
        between.append(c);
        i++;
        continue;
      }
      StringBuilder value = new StringBuilder();
      int j = i + 1;
      while (j < n && t.charAt(j) != '"') {
        char d = t.charAt(j);
        if (d == '\\' && j + 1 < n) {
          char e = t.charAt(++j);
          switch (e) {
            case 'n' -> value.append('\n');
            case 't' -> value.append('\t');
            case 'r' -> value.append('\r');
            case 'u' -> {
              if (j + 4 < n) {
                try {
                  value.append((char) Integer.parseInt(t.substring(j + 1, j + 5), 16));
                  j += 4;
                } catch (NumberFormatException ex) {
                  value.append('u');
                }
              }
            }
            default -> value.append(e);
          }
        } else {
          value.append(d);
        }
        j++;
      }
      int k = j + 1;
      while (k < n && Character.isWhitespace(t.charAt(k))) {
        k++;
      }
      boolean key = k < n && t.charAt(k) == ':';
      if (!key) {
        forEach(value.toString(), sink);
      }
      between.append(' ');
      i = j + 1;
    }
    forEach(between.toString(), sink);
  }
}
