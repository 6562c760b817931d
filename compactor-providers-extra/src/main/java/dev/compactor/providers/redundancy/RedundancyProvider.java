package dev.compactor.providers.redundancy;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ToolTurns;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redundancy removal ({@value #NAME}): a tool output that the conversation holds again later is
 * replaced, in its EARLIER copy, by a pointer to the later one. The call and its result stay paired
 * (the result keeps role, {@code toolCallId} and timestamp; only its content changes), and the
 * latest copy, the one the model is most likely to rely on, stays verbatim.
 *
 * <p>Two kinds of repetition:
 *
 * <ul>
 *   <li><b>identical output</b> — any tool, same text: {@code [Same output as the later result of
 *       call <call id> (message <id>); removed as duplicate]};
 *   <li><b>the same read again</b> — a read tool (default {@code read_file}, {@code read}, {@code
 *       view}, {@code view_file}, {@code open_file}, {@code cat}; extraConfig {@value #READ_TOOLS}
 *       replaces the list) called again with the same arguments, or a shell tool running {@code cat
 *       <file>} again. The file may have changed in between, so the pointer says so instead of
 *       claiming equality, and the earlier text goes to {@link CompressionConfig#archive()}: {@code
 *       [Superseded: read again later, see the result of call <call id> (message <id>); earlier
 *       output removed] <recovery reference>}.
 * </ul>
 *
 * <p>Never replaced: pinned messages, the first {@link CompressionConfig#keepHead()} messages,
 * {@code uiOnly} messages, results of a pending last turn, pointers, and outputs not longer than
 * their pointer. Each replacement gets the new id {@code <id>~dedup} and a provenance entry naming
 * the original.
 *
 * <p>{@link #shouldCompress} is true when the outputs that would be replaced hold more than {@value
 * #MIN_SHARE} (extraConfig {@value #MIN_SHARE_KEY}) of all tool-output tokens, or when the messages
 * count at least {@code config.limit()} tokens and there is any redundancy; without a limit only
 * the share counts. Stateless and thread-safe; found by {@link java.util.ServiceLoader} through
 * this module's {@code META-INF/services}.
 *
 * <pre>{@code
 * ContextProvider p = ProviderRegistry.global().get("redundancy");
 * CompressionConfig cfg = CompressionConfig.builder().limit(100_000).build();
 * if (p.shouldCompress(messages, cfg)) {
 *   messages = p.compress(messages, cfg).messages();
 * }
 * }</pre>
 */
public final class RedundancyProvider implements ContextProvider {

  /** The registered name. */
  public static final String NAME = "redundancy";

  /** extraConfig key: the names of read tools (a list of strings). */
  public static final String READ_TOOLS = "read_tools";

  /** extraConfig key: the redundant share of tool-output tokens that triggers compression. */
  public static final String MIN_SHARE_KEY = "min_share";

  /** Default of {@value #MIN_SHARE_KEY}. */
  public static final double MIN_SHARE = 0.3;

  /** Default read tools. */
  public static final List<String> DEFAULT_READ_TOOLS =
      List.of("read_file", "read", "view", "view_file", "open_file", "cat");

  private static final Set<String> SHELL_TOOLS =
      Set.of("shell", "bash", "sh", "terminal", "run_command", "execute_command", "run_shell");
  private static final Pattern COMMAND =
      Pattern.compile("\"(?:command|cmd)\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
  private static final Pattern CAT = Pattern.compile("cat\\s+(\\S+)\\s*");
  private static final String SAME_PREFIX = "[Same output as the later result of call ";
  private static final String SUPERSEDED_PREFIX = "[Superseded: read again later, see the result";
  private static final String ID_SUFFIX = "~dedup";

  /** Creates the provider (the {@link java.util.ServiceLoader} constructor). */
  public RedundancyProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /**
   * True when the redundant share of tool-output tokens exceeds {@value #MIN_SHARE_KEY}, or when at
   * or over the limit with any redundancy.
   *
   * @throws CompactorException when an extraConfig option is invalid
   */
  @Override
  public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
    double minShare = minShare(config);
    List<Duplicate> plan = plan(messages, config);
    if (plan.isEmpty()) {
      return false;
    }
    TokenCounter counter = config.counter();
    long redundant = 0;
    for (Duplicate d : plan) {
      redundant += counter.countMessage(messages.get(d.earlier));
    }
    long outputs = 0;
    for (Message m : messages) {
      if (m.role() == Role.TOOL && !m.uiOnly()) {
        outputs += counter.countMessage(m);
      }
    }
    if (outputs > 0 && (double) redundant / outputs > minShare) {
      return true;
    }
    // a view of exactly limit tokens fits, as for the built-in strategies
    return config.limit() != null && counter.countMessages(messages) > config.limit();
  }

  /**
   * Replaces every earlier copy by a pointer to the latest; the input unchanged when nothing
   * repeats.
   *
   * @throws CompactorException when an extraConfig option is invalid
   */
  @Override
  public CompactionResult compress(List<Message> messages, CompressionConfig config) {
    minShare(config); // validate options on every entry point
    List<Duplicate> plan = plan(messages, config);
    if (plan.isEmpty()) {
      return CompactionResult.unchanged(messages);
    }
    TokenCounter counter = config.counter();
    List<Message> out = new ArrayList<>(messages);
    Map<MessageId, List<MessageId>> provenance = new LinkedHashMap<>();
    long before = 0;
    long after = 0;
    int same = 0;
    for (Duplicate d : plan) {
      Message m = messages.get(d.earlier);
      Message later = messages.get(d.later);
      String pointer =
          d.identical
              ? SAME_PREFIX
                  + later.toolCallId()
                  + " (message "
                  + later.id()
                  + "); removed as duplicate]"
              : SUPERSEDED_PREFIX
                  + " of call "
                  + later.toolCallId()
                  + " (message "
                  + later.id()
                  + "); earlier output removed] "
                  + config.archive().save(m, m.content());
      Message replaced =
          m.toBuilder()
              .id(MessageId.of(m.id().value() + ID_SUFFIX))
              .content(pointer.strip())
              .build();
      out.set(d.earlier, replaced);
      provenance.put(replaced.id(), List.of(m.id()));
      before += counter.countText(m.content());
      after += counter.countText(replaced.content());
      same += d.identical ? 1 : 0;
    }
    String note =
        String.format(
            Locale.ROOT,
            "replaced %d earlier tool output(s) by pointers to their later copy (%d identical, %d"
                + " superseded reads): %,d -> %,d tokens",
            plan.size(),
            same,
            plan.size() - same,
            before,
            after);
    return CompactionResult.of(messages, out, List.of(note), provenance);
  }

  /** An earlier output (index) and the later copy it points to. */
  private record Duplicate(int earlier, int later, boolean identical) {}

  /** Every earlier copy worth replacing, in source order. */
  private static List<Duplicate> plan(List<Message> messages, CompressionConfig config) {
    Set<String> readTools = readTools(config);
    Map<String, ToolCall> calls = new HashMap<>();
    for (Message m : messages) {
      for (ToolCall c : m.toolCalls()) {
        calls.putIfAbsent(c.id(), c);
      }
    }
    Set<String> pending = ToolTurns.openLastTurn(messages);
    TokenCounter counter = config.counter();
    // From the end: the first occurrence seen is the latest copy, which stays verbatim.
    Map<String, Integer> latestByContent = new HashMap<>();
    Map<String, Integer> latestByRead = new HashMap<>();
    List<Duplicate> found = new ArrayList<>();
    for (int i = messages.size() - 1; i >= 0; i--) {
      Message m = messages.get(i);
      if (m.role() != Role.TOOL || m.uiOnly() || isPointer(m.content())) {
        continue;
      }
      String readKey = readKey(calls.get(m.toolCallId()), readTools);
      Integer later = latestByContent.get(m.content());
      boolean identical = later != null;
      if (later == null && readKey != null) {
        later = latestByRead.get(readKey);
      }
      boolean replace =
          later != null
              && i >= config.keepHead()
              && !m.pinned()
              && !(m.toolCallId() != null && pending.contains(m.toolCallId()))
              && counter.countText(m.content()) > pointerTokens(counter);
      if (replace) {
        found.add(new Duplicate(i, later, identical));
      } else {
        // Only a copy that stays verbatim can be pointed to.
        latestByContent.putIfAbsent(m.content(), i);
        if (readKey != null) {
          latestByRead.putIfAbsent(readKey, i);
        }
      }
    }
    java.util.Collections.reverse(found);
    return found;
  }

  /** About what a pointer costs: outputs no longer than this are left alone. */
  private static int pointerTokens(TokenCounter counter) {
    return counter.countText(
        SUPERSEDED_PREFIX
            + " of call call_00000 (message m00000); earlier output removed] master"
            + " message m00000");
  }

  private static boolean isPointer(String content) {
    return content.startsWith(SAME_PREFIX) || content.startsWith(SUPERSEDED_PREFIX);
  }

  /** What identifies a read: tool name and arguments, or the file of a shell {@code cat}. */
  private static String readKey(ToolCall call, Set<String> readTools) {
    if (call == null) {
      return null;
    }
    String name = call.name().toLowerCase(Locale.ROOT);
    if (readTools.contains(name)) {
      return name + "\u0000" + call.arguments().strip();
    }
    if (SHELL_TOOLS.contains(name)) {
      Matcher m = COMMAND.matcher(call.arguments());
      String command = m.find() ? m.group(1) : call.arguments();
      Matcher cat = CAT.matcher(command.strip());
      if (cat.matches()) {
        return "cat\u0000" + cat.group(1);
      }
    }
    return null;
  }

  private static Set<String> readTools(CompressionConfig config) {
    Object v = config.extraConfig().get(READ_TOOLS);
    if (v == null) {
      return Set.copyOf(DEFAULT_READ_TOOLS);
    }
    if (!(v instanceof List<?> list) || list.stream().anyMatch(e -> !(e instanceof String))) {
      throw new CompactorException(
          "extraConfig \""
              + READ_TOOLS
              + "\" of context provider "
              + NAME
              + " must be a list of tool names, got "
              + v);
    }
    Set<String> names = new HashSet<>();
    list.forEach(e -> names.add(((String) e).toLowerCase(Locale.ROOT)));
    return names;
  }

  private static double minShare(CompressionConfig config) {
    Object v = config.extraConfig().get(MIN_SHARE_KEY);
    if (v == null) {
      return MIN_SHARE;
    }
    Double d = null;
    if (v instanceof Number n) {
      d = n.doubleValue();
    } else if (v instanceof String s) {
      try {
        d = Double.parseDouble(s.strip());
      } catch (NumberFormatException ignored) {
        // reported below
      }
    }
    if (d == null || !(d >= 0 && d < 1)) {
      throw new CompactorException(
          "extraConfig \""
              + MIN_SHARE_KEY
              + "\" of context provider "
              + NAME
              + " must be a number in [0, 1), got "
              + (v instanceof String ? "\"" + v + "\"" : String.valueOf(v)));
    }
    return d;
  }
}
