package dev.compactor.core.compaction.mask;

import dev.compactor.core.CompactorException;
import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ToolTurns;
import dev.compactor.core.compaction.text.Identifiers;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Observation masking ({@value #NAME}): every tool output except the most recent ones is replaced
 * by a short placeholder that keeps what the output named and says where the full text is.
 *
 * <pre>
 * [Output masked - 2,340 tokens; mentioned: KeyError, test_bar, src/foo.py:41; names: `lookup`,
 * `TableCache`] master message m00042
 * </pre>
 *
 * <p>A placeholder keeps up to 8 mentions (error names, tests, paths with line numbers, ids; see
 * {@link Identifiers#mentions}) and up to {@value #DEFAULT_NAMES} code names ({@link
 * Identifiers#codeNames}: names the output defines first, then the ones it uses most) that the rest
 * of the view does not name: not the messages that stay as they are, not an earlier placeholder of
 * the same batch. An agent that read a file often needs one of its function names again much later;
 * with the name it can search for the rest.
 *
 * <p>Tool outputs are usually most of an agent's context (about 84 % of the tokens of SWE-agent
 * runs), and the model rarely needs an old one verbatim. Masking all but the last 10 roughly halves
 * the cost of a SWE-bench run while matching or slightly beating LLM summarization (Lindenbauer et
 * al., "The Complexity Trap", arXiv 2508.21433). It needs no model call, is deterministic, and
 * keeps every message: roles, order, timestamps, tool calls, {@code toolCallId}s (so every call
 * keeps its result) and reasoning blocks are unchanged; only the content of masked tool results
 * changes. A masked result gets the new id {@code <source id>~masked} and a provenance entry naming
 * the result it replaces, so {@link dev.compactor.core.view.Conversation#recover} gives the
 * original back; the placeholder ends with the reference {@link CompressionConfig#archive()}
 * returned when it saved the output.
 *
 * <p><b>Batches, not every turn.</b> Providers cache the longest request prefix they have seen
 * before; a cached token costs about a tenth of fresh input, a cache write about 1.25 times
 * (Anthropic's prices). Masking the output that just left a sliding window of M changes the request
 * at that output on every turn, so the M outputs after it are written to the cache again every turn
 * instead of read from it. With o tokens per output and M = 10, per-turn masking costs about
 * 1.25·M·o = 12.5·o per turn, while an unmasked context of t outputs costs 0.1·t·o + 1.25·o: over a
 * 100-turn session, per-turn masking costs about twice as much as no compaction at all. (Replaying
 * a generated 500-step session with a 150k limit, {@code MaskSessionSimulationTest} measures
 * per-turn masking at twice the cost of batched masking, with 283 prefix changes against 31.) So
 * masking runs in batches:
 *
 * <ul>
 *   <li>{@link #shouldCompress} is true only when the context is over {@code config.limit()} (a
 *       view of exactly {@code limit} tokens fits) (never when the limit is null) and there is
 *       something to mask;
 *   <li>{@link #compress} masks the outputs before a boundary that moves on a grid of {@code batch}
 *       outputs (default 10): with n tool outputs it masks the first {@code ⌊(n − keep_last) /
 *       batch⌋ · batch} of them (except those never masked, below). The boundary depends on n
 *       alone, so the prefix changes at most once per {@code batch} new outputs however often
 *       {@code compress} is called, and each change masks up to {@code batch} outputs at once.
 * </ul>
 *
 * <p>Never masked: pinned messages, the first {@link CompressionConfig#keepHead()} messages,
 * results of the pending last turn (an assistant message whose calls are not all answered), {@code
 * uiOnly} messages, outputs already masked or rewritten by a trim, and outputs under {@code
 * min_tokens} tokens (their placeholder would save next to nothing).
 *
 * <p>Options ({@link CompressionConfig#extraConfig()}, whole numbers, as numbers or strings):
 *
 * <ul>
 *   <li>{@value #KEEP_LAST} (default {@value #DEFAULT_KEEP_LAST}, &ge; 0): tool outputs kept
 *       verbatim at the end;
 *   <li>{@value #BATCH} (default {@value #DEFAULT_BATCH}, &ge; 1): the grid the boundary moves on;
 *   <li>{@value #MIN_TOKENS} (default {@value #DEFAULT_MIN_TOKENS}, &ge; 0): smaller outputs stay;
 *   <li>{@value #NAMES} (default {@value #DEFAULT_NAMES}, &ge; 0): code names a placeholder lists
 *       at most (0: only the mentions);
 *   <li>{@value #MENTIONS} (default 8, &ge; 0): mentions a placeholder lists at most;
 *   <li>{@value #INDEX} (default 0, &ge; 0): further identifiers of the output a placeholder lists
 *       at most (one per {@value #INDEX_TOKENS_PER_NAME} tokens of output).
 * </ul>
 *
 * <p>Stateless and thread-safe. Example:
 *
 * <pre>{@code
 * ContextProvider mask = ProviderRegistry.global().get("mask");
 * CompressionConfig cfg = CompressionConfig.builder()
 *     .limit(100_000)
 *     .archive(store.archive())
 *     .extraConfig(Map.of("keep_last", 10))
 *     .build();
 * if (mask.shouldCompress(messages, cfg)) {
 *   CompactionResult r = mask.compress(messages, cfg);
 * }
 * }</pre>
 */
public final class MaskProvider implements ContextProvider {

  /** The registered name. */
  public static final String NAME = "mask";

  /** extraConfig key: tool outputs kept verbatim at the end. */
  public static final String KEEP_LAST = "keep_last";

  /** extraConfig key: the boundary of masked outputs moves in steps of this many outputs. */
  public static final String BATCH = "batch";

  /** extraConfig key: outputs with fewer tokens are never masked. */
  public static final String MIN_TOKENS = "min_tokens";

  public static final int DEFAULT_KEEP_LAST = 10;
  public static final int DEFAULT_BATCH = 10;
  public static final int DEFAULT_MIN_TOKENS = 100;

  /** extraConfig key: code names a placeholder lists at most, besides its mentions. */
  public static final String NAMES = "names";

  public static final int DEFAULT_NAMES = 12;

  /**
   * extraConfig key: further identifiers of the output (any kind, in order of appearance) that the
   * rest of the view lacks, at most this many per placeholder and one per {@value
   * #INDEX_TOKENS_PER_NAME} tokens of output (default 0: none).
   */
  public static final String INDEX = "index";

  /** Tokens of output per identifier of a placeholder's index. */
  public static final int INDEX_TOKENS_PER_NAME = 25;

  /** extraConfig key: mentions (errors, tests, paths, ids) a placeholder lists at most. */
  public static final String MENTIONS = "mentions";

  /** How every placeholder starts; an output starting with it is never masked again. */
  public static final String PLACEHOLDER_PREFIX = "[Output masked - ";

  /** Metadata key with which the built-in trim marks the messages it rewrote. */
  static final String COMPACTED_BY_OTHERS = "compacted";

  /** Suffix of the id of a masked result: {@code <source id>~masked}. */
  static final String ID_SUFFIX = "~masked";

  private static final int MAX_MENTIONS = 8;

  /** Creates the provider (the {@link java.util.ServiceLoader} constructor). */
  public MaskProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /**
   * True when the messages count at least {@code config.limit()} tokens and at least one output is
   * due for masking; always false when the limit is null. Counts are cached per message, so calling
   * this after every turn costs O(new messages) for the count and O(messages) for the plan.
   *
   * @throws CompactorException when an option in {@code extraConfig} is invalid
   */
  @Override
  public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
    Options options = Options.of(config);
    if (config.limit() == null || config.counter().countMessages(messages) <= config.limit()) {
      return false;
    }
    return !plan(messages, config, options).isEmpty();
  }

  /**
   * Masks the tool outputs before the current batch boundary (see the class comment). Returns the
   * input unchanged when none is due.
   *
   * @throws CompactorException when an option in {@code extraConfig} is invalid
   */
  @Override
  public CompactionResult compress(List<Message> messages, CompressionConfig config) {
    Options options = Options.of(config);
    List<Integer> targets = plan(messages, config, options);
    if (targets.isEmpty()) {
      return CompactionResult.unchanged(messages);
    }
    TokenCounter counter = config.counter();
    List<Message> out = new ArrayList<>(messages);
    Map<MessageId, List<MessageId>> provenance = new LinkedHashMap<>();
    long before = 0;
    long after = 0;
    // Names a placeholder lists are those the rest of the view does not name: the messages that
    // stay as they are, and the placeholders made before it.
    Set<String> named = new HashSet<>();
    Set<Integer> targetSet = new HashSet<>(targets);
    for (int i = 0; i < messages.size(); i++) {
      if (!targetSet.contains(i)) {
        named.addAll(Identifiers.of(messages.get(i)));
      }
    }
    for (int i : targets) {
      Message m = messages.get(i);
      int tokens = counter.countText(m.content());
      String reference = config.archive().save(m, m.content());
      List<String> mentions = Identifiers.mentions(m.content(), options.mentions());
      named.addAll(mentions);
      List<String> names = Identifiers.codeNames(m.content(), options.names(), named);
      named.addAll(names);
      List<String> also = List.of();
      if (options.index() > 0) {
        also = index(m, named, Math.min(options.index(), 1 + tokens / INDEX_TOKENS_PER_NAME));
        named.addAll(also);
      }
      String placeholder = placeholder(tokens, mentions, names, also, reference);
      Message masked =
          m.toBuilder().id(MessageId.of(m.id().value() + ID_SUFFIX)).content(placeholder).build();
      out.set(i, masked);
      provenance.put(masked.id(), List.of(m.id()));
      before += tokens;
      after += counter.countText(placeholder);
    }
    List<String> notes = new ArrayList<>();
    notes.add(
        String.format(
            Locale.ROOT,
            "masked %d tool output(s) older than the last %d: %,d tokens of output replaced by %,d"
                + " tokens of placeholders naming their recovery references",
            targets.size(),
            options.keepLast(),
            before,
            after));
    if (config.limit() != null) {
      long total = counter.countMessages(out);
      if (total >= config.limit()) {
        notes.add(
            String.format(
                Locale.ROOT,
                "still %,d tokens, at or over the limit of %,d: the last %d tool outputs and all"
                    + " other messages are kept verbatim; trim or summarize to go further",
                total,
                config.limit(),
                options.keepLast()));
      }
    }
    return CompactionResult.of(messages, out, notes, provenance);
  }

  /**
   * The identifiers of {@code m} ({@link Identifiers#of}: paths, code names, errors, quoted
   * strings, long numbers) that {@code named} lacks, in order of first appearance, at most {@code
   * max}.
   */
  static List<String> index(Message m, Set<String> named, int max) {
    List<String> out = new ArrayList<>();
    for (String id : Identifiers.of(m)) {
      if (out.size() >= max) {
        break;
      }
      if (!named.contains(id) && Identifiers.listable(id)) {
        out.add(id);
      }
    }
    return out;
  }

  /** The placeholder text; public so that tools and tests can recognise and parse it. */
  public static String placeholder(int tokens, List<String> mentions, String reference) {
    return placeholder(tokens, mentions, List.of(), reference);
  }

  /**
   * The placeholder text with the code names the output used ({@code names: `a`, `b`}); public so
   * that tools and tests can recognise and parse it.
   */
  public static String placeholder(
      int tokens, List<String> mentions, List<String> names, String reference) {
    return placeholder(tokens, mentions, names, List.of(), reference);
  }

  /**
   * The placeholder text with the code names and the further identifiers of the output's index
   * ({@code also: `x`, `y`}); public so that tools and tests can recognise and parse it.
   */
  public static String placeholder(
      int tokens, List<String> mentions, List<String> names, List<String> also, String reference) {
    StringBuilder sb = new StringBuilder(PLACEHOLDER_PREFIX);
    sb.append(String.format(Locale.ROOT, "%,d tokens", tokens));
    if (!mentions.isEmpty()) {
      sb.append("; mentioned: ").append(String.join(", ", mentions));
    }
    if (!names.isEmpty()) {
      sb.append("; names: `").append(String.join("`, `", names)).append('`');
    }
    if (!also.isEmpty()) {
      sb.append("; also: `").append(String.join("`, `", also)).append('`');
    }
    sb.append(']');
    if (reference != null && !reference.isBlank()) {
      sb.append(' ').append(reference.strip());
    }
    return sb.toString();
  }

  /** Indices of the outputs to mask now, in order. */
  private static List<Integer> plan(
      List<Message> messages, CompressionConfig config, Options options) {
    List<Integer> outputs = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      Message m = messages.get(i);
      if (m.role() == Role.TOOL && !m.uiOnly()) {
        outputs.add(i);
      }
    }
    int due = Math.max(0, outputs.size() - options.keepLast());
    int boundary = due / options.batch() * options.batch();
    if (boundary == 0) {
      return List.of();
    }
    Set<String> pending = ToolTurns.openLastTurn(messages);
    TokenCounter counter = config.counter();
    List<Integer> targets = new ArrayList<>();
    for (int k = 0; k < boundary; k++) {
      int i = outputs.get(k);
      Message m = messages.get(i);
      if (i < config.keepHead()
          || m.pinned()
          || m.content().startsWith(PLACEHOLDER_PREFIX)
          // Already rewritten by another strategy (a trim stub or truncation, which name their
          // own recovery reference): masking it again would archive that rewrite, not the output.
          || m.metadata().extra().containsKey(COMPACTED_BY_OTHERS)
          || (m.toolCallId() != null && pending.contains(m.toolCallId()))
          // countMessage is cached per message: the per-turn check stays O(new messages).
          || counter.countMessage(m) < options.minTokens()) {
        continue;
      }
      targets.add(i);
    }
    return targets;
  }

  /** Parsed, validated extraConfig options. */
  private record Options(
      int keepLast, int batch, int minTokens, int names, int mentions, int index) {

    static Options of(CompressionConfig config) {
      Map<String, Object> extra = config.extraConfig();
      return new Options(
          intOption(extra, KEEP_LAST, DEFAULT_KEEP_LAST, 0),
          intOption(extra, BATCH, DEFAULT_BATCH, 1),
          intOption(extra, MIN_TOKENS, DEFAULT_MIN_TOKENS, 0),
          intOption(extra, NAMES, DEFAULT_NAMES, 0),
          intOption(extra, MENTIONS, MAX_MENTIONS, 0),
          intOption(extra, INDEX, 0, 0));
    }

    private static int intOption(Map<String, Object> extra, String key, int dflt, int min) {
      Object v = extra.get(key);
      if (v == null) {
        return dflt;
      }
      Integer parsed = null;
      if (v instanceof Number n) {
        double d = n.doubleValue();
        if (d == Math.rint(d) && Math.abs(d) <= Integer.MAX_VALUE) {
          parsed = (int) d;
        }
      } else if (v instanceof String s) {
        try {
          parsed = Integer.parseInt(s.strip());
        } catch (NumberFormatException ignored) {
          // reported below
        }
      }
      if (parsed == null || parsed < min) {
        throw new CompactorException(
            "extraConfig \""
                + key
                + "\" of context provider "
                + NAME
                + " must be a whole number >= "
                + min
                + ", got "
                + (v instanceof String ? "\"" + v + "\"" : String.valueOf(v)));
      }
      return parsed;
    }
  }
}
