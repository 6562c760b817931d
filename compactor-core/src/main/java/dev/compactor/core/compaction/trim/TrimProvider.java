package dev.compactor.core.compaction.trim;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.text.Identifiers;
import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.IntToLongFunction;
import java.util.function.ToIntFunction;

/**
 * The {@code trim} strategy (the default): rule-based, deterministic, no model call. It replaces
 * messages one for one, so positions, roles, timestamps and tool-call pairing are kept, and applies
 * its phases in order of least damage, stopping as soon as the target is reached:
 *
 * <ol>
 *   <li><b>Stale tool outputs</b> (phase 0): tool results of at least 200 tokens whose relevance is
 *       below 1.0 — not among the last 3 messages, mentioning no error, exception, traceback,
 *       failed or failure, and naming no file path that a later message names — become a short stub
 *       with the archive's recovery reference, least relevant (oldest) first. A stub keeps the
 *       identifiers its output named that the rest of the view does not: up to 6 mentions (error
 *       names, tests, paths with line numbers, ids) and 8 code names (defined ones first), so that
 *       the model can still name, search for or ask back what it read. A masking placeholder
 *       ({@code [Output masked - …]}) is never stubbed: it is already short, and its index of names
 *       would be cut to the stub's few.
 *   <li><b>Large tool outputs</b> (phase 2): tool results above {@code maxToolResultTokens},
 *       largest first, keep their first ~40 % and last ~20 % of the allowed tokens on line
 *       boundaries; the middle is saved through {@link CompressionConfig#archive()} and replaced by
 *       a marker naming the tokens and lines removed and the recovery reference.
 *   <li><b>Extractive compression</b> (phase 3): assistant messages at least 3 from the end, above
 *       1,000 tokens, without tool calls and without reasoning (reasoning blocks, or inline {@code
 *       <think>}/{@code <thinking>} blocks as imported gptme content has them) keep their best
 *       {@code max(2, int(0.7 n))} sentences, with code blocks, headings and line breaks intact.
 *   <li><b>Outputs larger than the limit</b> (phase 4): a tool result that alone exceeds {@code
 *       config.limit()} can never fit, so it is truncated like phase 2 (to {@code
 *       min(maxToolResultTokens, limit / 2)}) even in the final step; pinned outputs and the
 *       results of a pending call excepted.
 * </ol>
 *
 * <p>Every truncation marker names the tool call whose output it cut (name and arguments, clipped)
 * and the recovery reference of the removed middle.
 *
 * <p>Never touched: pinned messages, the first {@code keepHead} messages, the newest user message,
 * the final step (the last assistant or user message and the tool results after it, but for phase
 * 4), a pending tool call and its results, reasoning blocks (a message with reasoning is never
 * rewritten), {@code uiOnly} messages. The reasoning-strip age threshold of {@link
 * CompressionConfig} is not supported: retained thinking is never rewritten.
 *
 * <p>The target is {@code limit × trimTargetRatio}. Without a limit (a manual {@code /compact
 * trim}) every phase is applied fully. A target that cannot be reached is reported in {@link
 * CompactionResult#limitations()} with the tokens reached, never claimed. Every replaced message
 * gets a new id ({@code <old id>~stub-<sha8>}, {@code ~cut-}, {@code ~extract-}), a provenance
 * entry naming the message it replaces and {@code metadata.extra.compacted} = {@code stub}, {@code
 * truncated} or {@code extractive}.
 *
 * <p>Cost: two linear passes over the text plus tokenizing only what is written; token counts of
 * the input come from the counter's cache, and so do the head and tail lines of an output truncated
 * before. A truncated output's replacement is counted from the lines its cut counted ({@link
 * TokenCounter#countMessageReusingLines}): only its marker is tokenized anew. Phases 2 and 3 work
 * out their rewrites a batch at a time (the candidates the estimated savings say are needed), each
 * when it is first needed; when a batch holds more than 256 K characters, threads of the common
 * fork-join pool work out the next ones meanwhile. Stateless and thread-safe.
 */
public final class TrimProvider implements ContextProvider {
  /** The registered name. */
  public static final String NAME = "trim";

  /** Metadata key ({@code metadata.extra}) that marks a message this strategy rewrote. */
  public static final String COMPACTED_KEY = "compacted";

  static final String STUB = "stub";
  static final String TRUNCATED = "truncated";
  static final String EXTRACTIVE = "extractive";

  /** Share of sentences phase 3 keeps. */
  static final double EXTRACTIVE_RATIO = 0.7;

  /** Estimated tokens of a stub, for {@link #estimateSavings}. */
  private static final int STUB_TOKENS = 90;

  /** Estimated tokens of a truncation marker, for {@link #estimateSavings}. */
  private static final int MARKER_TOKENS = 50;

  private static final int CALL_PREVIEW_CHARS = 120;

  private static final java.util.regex.Pattern SPACES = java.util.regex.Pattern.compile("\\s+");

  public TrimProvider() {}

  @Override
  public String name() {
    return NAME;
  }

  /**
   * True when there is a limit and the messages exceed it. A view of exactly {@code limit} tokens
   * fits: {@link #compress} with {@code trimTargetRatio} 1.0 leaves it as it is, so the two agree
   * at the boundary.
   */
  @Override
  public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
    return config.limit() != null && config.counter().countMessages(messages) > config.limit();
  }

  @Override
  public CompactionResult compress(List<Message> messages, CompressionConfig config) {
    return trim(messages, config).result();
  }

  /** Trims and reports the numbers behind the result. */
  public TrimOutcome trim(List<Message> messages, CompressionConfig config) {
    List<Message> source = List.copyOf(messages);
    TrimAnalysis a = new TrimAnalysis(source, config);
    TokenCounter counter = config.counter();
    Integer target = config.target();
    List<String> limitations = new ArrayList<>();
    if (config.reasoningStripAgeThreshold() != null) {
      limitations.add(
          "reasoning stripping (age threshold "
              + config.reasoningStripAgeThreshold()
              + ") is not supported: reasoning blocks are never rewritten");
    }
    if (target != null && a.total <= target) {
      return new TrimOutcome(
          CompactionResult.of(source, source, limitations, Map.of()),
          a.total,
          a.total,
          target,
          0,
          0,
          0);
    }
    Run run = new Run(source, a.tokens, target, a.total);
    // Phase 0 builds stubs one by one (each saves to the archive). Phases 2 and 3 work out their
    // rewrites (the costly part: tokenizing head and tail lines, scoring sentences) for a batch of
    // candidates at a time — other threads running ahead when the batch is large, while this one
    // builds and saves the replacements — and apply them in order until the target is reached. A
    // batch holds the candidates the estimate says are needed, and a candidate is worked out only
    // when it is needed or a thread is free for it, so little is worked out in vain.
    StubNames names = new StubNames(source, a.stale);
    long[] stubs =
        run.phase(
            a.stale,
            i -> a.tokens[i] - STUB_TOKENS,
            null,
            counter::countMessage,
            (i, m, x) -> stub(m, a.contentTokens(i), a.calls.get(m.toolCallId()), names, config));
    long keptPerCut =
        (long) (config.maxToolResultTokens() * (Truncation.HEAD_SHARE + Truncation.TAIL_SHARE))
            + MARKER_TOKENS;
    long[] cuts =
        run.phase(
            a.large,
            i -> a.tokens[i] - keptPerCut,
            i -> Truncation.cut(source.get(i).content(), config.maxToolResultTokens(), counter),
            counter::countMessageReusingLines,
            (i, m, cut) ->
                truncate(m, cut, a.contentTokens(i), config, a.calls.get(m.toolCallId())));
    long[] extracts =
        run.phase(
            a.prose,
            i -> (long) (a.tokens[i] * (1 - EXTRACTIVE_RATIO)),
            i -> ExtractiveCompression.compress(source.get(i).content(), EXTRACTIVE_RATIO),
            counter::countMessage,
            (i, m, c) -> extract(m, c, config));
    // Phase 4: an output that alone exceeds the limit can never fit, wherever it is (the final
    // step's included): head and tail kept, the middle recoverable, the command named.
    long[] oversized =
        run.phase(
            a.oversized,
            i -> a.tokens[i] - keptOf(a.oversizedAllowed),
            i -> Truncation.cut(source.get(i).content(), a.oversizedAllowed, counter),
            counter::countMessageReusingLines,
            (i, m, cut) ->
                truncate(m, cut, a.contentTokens(i), config, a.calls.get(m.toolCallId())));
    int stubbed = (int) stubs[0];
    long stubbedTokens = stubs[1];
    int truncated = (int) cuts[0];
    long truncatedTokens = cuts[1];
    int cutOversized = (int) oversized[0];
    long oversizedTokens = oversized[1];
    int compressed = (int) extracts[0];
    long compressedTokens = extracts[1];
    long total = run.total;
    Message[] out = run.out;
    Map<MessageId, List<MessageId>> provenance = run.provenance;

    if (stubbed > 0) {
      limitations.add(
          stubbed + " stale tool outputs replaced by stubs (" + stubbedTokens + " tokens)");
    }
    if (truncated > 0) {
      limitations.add(
          truncated
              + " large tool outputs truncated to head and tail ("
              + truncatedTokens
              + " tokens)");
    }
    if (cutOversized > 0) {
      limitations.add(
          cutOversized
              + " tool outputs larger than the limit on their own truncated to head and tail ("
              + oversizedTokens
              + " tokens), the final step's included");
    }
    if (compressed > 0) {
      limitations.add(
          compressed
              + " assistant messages compressed extractively ("
              + compressedTokens
              + " tokens)");
    }
    if (target != null && total > target) {
      limitations.add(
          "target not reached: "
              + total
              + " tokens after trim, target "
              + target
              + " (limit "
              + config.limit()
              + " × "
              + config.trimTargetRatio()
              + "); nothing else may be trimmed without touching protected messages");
    }
    List<Message> result =
        stubbed + truncated + compressed + cutOversized == 0 ? source : Arrays.asList(out);
    return new TrimOutcome(
        CompactionResult.of(source, result, limitations, provenance),
        a.total,
        total,
        target,
        stubbed,
        truncated + cutOversized,
        compressed);
  }

  /**
   * Estimates what a full trim (no limit) would save, without building messages or writing to the
   * archive. Linear in the text; token counts come from the counter's cache.
   */
  public SavingsEstimate estimateSavings(List<Message> messages, CompressionConfig config) {
    TrimAnalysis a = new TrimAnalysis(List.copyOf(messages), config);
    long saved = 0;
    boolean[] stale = new boolean[messages.size()];
    for (int i : a.stale) {
      stale[i] = true;
      saved += Math.max(0, a.tokens[i] - STUB_TOKENS);
    }
    int large = 0;
    long kept =
        (long) (config.maxToolResultTokens() * (Truncation.HEAD_SHARE + Truncation.TAIL_SHARE))
            + MARKER_TOKENS;
    for (int i : a.large) {
      if (!stale[i]) {
        large++;
        saved += Math.max(0, a.tokens[i] - kept);
      }
    }
    for (int i : a.prose) {
      saved += (long) (a.tokens[i] * (1 - EXTRACTIVE_RATIO));
    }
    boolean[] cut = new boolean[messages.size()];
    for (int i : a.large) {
      cut[i] = true;
    }
    for (int i : a.oversized) {
      if (!stale[i] && !cut[i]) {
        large++;
        saved += Math.max(0, a.tokens[i] - keptOf(a.oversizedAllowed));
      }
    }
    return new SavingsEstimate(a.total, saved, a.stale.size(), large, a.prose.size());
  }

  /** Estimated tokens of an output truncated to {@code allowed} tokens, marker included. */
  private static long keptOf(int allowed) {
    return (long) (allowed * (Truncation.HEAD_SHARE + Truncation.TAIL_SHARE)) + MARKER_TOKENS;
  }

  private static boolean reached(long total, Integer target) {
    return target != null && total <= target;
  }

  /** Characters of content from which a batch is prepared on several threads. */
  static final long PARALLEL_CHARS = 256 * 1024;

  /** Builds the replacement of message {@code index} from what was prepared for it. */
  @FunctionalInterface
  private interface Rewrite<T> {
    Message build(int index, Message m, T prepared);
  }

  /** The messages of one trim as they are being replaced, and the running total. */
  private static final class Run {
    final List<Message> source;
    final int[] tokens;
    final Integer target;
    final Message[] out;
    final boolean[] replaced;
    final Map<MessageId, List<MessageId>> provenance = new LinkedHashMap<>();
    long total;

    Run(List<Message> source, int[] tokens, Integer target, long total) {
      this.source = source;
      this.tokens = tokens;
      this.target = target;
      this.out = source.toArray(new Message[0]);
      this.replaced = new boolean[out.length];
      this.total = total;
    }

    boolean reached() {
      return TrimProvider.reached(total, target);
    }

    /**
     * Replaces candidates in order until the target is reached: {@code work} prepares a batch (a
     * null result: leave that one; no {@code work}: nothing to prepare, {@code rewrite} gets null),
     * {@code rewrite} builds each replacement, which is kept when it has fewer tokens ({@code
     * counting}: the counter's count of it; a truncation's reuses the lines its cut counted).
     *
     * @return {replaced messages, tokens saved}
     */
    <T> long[] phase(
        List<Integer> candidates,
        IntToLongFunction saving,
        IntFunction<T> work,
        ToIntFunction<Message> counting,
        Rewrite<T> rewrite) {
      List<Integer> open = new ArrayList<>(candidates.size());
      for (int i : candidates) {
        if (!replaced[i]) {
          open.add(i);
        }
      }
      long count = 0;
      long saved = 0;
      for (int from = 0; from < open.size() && !reached(); ) {
        List<Integer> batch = batch(open, from, saving);
        from += batch.size();
        Prepared<T> prepared = work == null ? null : prepare(batch, work);
        try {
          for (int b = 0; b < batch.size() && !reached(); b++) {
            int i = batch.get(b);
            T p = prepared == null ? null : prepared.get(b);
            if (prepared != null && p == null) {
              continue;
            }
            Message m = source.get(i);
            Message replacement = rewrite.build(i, m, p);
            int t = counting.applyAsInt(replacement);
            if (t >= tokens[i]) {
              continue;
            }
            out[i] = replacement;
            replaced[i] = true;
            provenance.put(replacement.id(), List.of(m.id()));
            total += t - tokens[i];
            count++;
            saved += tokens[i] - t;
          }
        } finally {
          if (prepared != null) {
            prepared.stop();
          }
        }
      }
      return new long[] {count, saved};
    }

    /**
     * The candidates from {@code from} on that the estimated savings say are needed to reach the
     * target, plus a quarter for estimates that fall short; all of them without a target.
     */
    private List<Integer> batch(List<Integer> candidates, int from, IntToLongFunction saving) {
      int to = from;
      if (target == null) {
        to = candidates.size();
      } else {
        long need = (total - target) + (total - target) / 4;
        long sum = 0;
        while (to < candidates.size() && sum < need) {
          sum += Math.max(1, saving.applyAsLong(candidates.get(to)));
          to++;
        }
        to = Math.max(to, from + 1);
      }
      return candidates.subList(from, Math.min(to, candidates.size()));
    }

    /**
     * {@code work} of each candidate of the batch, worked out when it is first needed; when the
     * batch has enough text to pay for it, threads of the common fork-join pool work out the next
     * ones meanwhile, in order, so that preparing the candidates overlaps building and saving the
     * replacements. {@code work} must be pure: it may run for a candidate whose result is not used.
     */
    private <T> Prepared<T> prepare(List<Integer> batch, IntFunction<T> work) {
      long chars = 0;
      for (int i : batch) {
        chars += source.get(i).content().length();
      }
      Prepared<T> p = new Prepared<>(batch, work);
      if (batch.size() > 1 && chars >= PARALLEL_CHARS) {
        int helpers = Math.min(ForkJoinPool.getCommonPoolParallelism(), batch.size() - 1);
        for (int h = 0; h < helpers; h++) {
          ForkJoinPool.commonPool().execute(p::workAhead);
        }
      }
      return p;
    }
  }

  /**
   * The prepared work of a batch's candidates: each slot is worked out once, by whichever thread
   * claims it first (the trim's own thread when it needs a slot nobody has started, else a helper
   * running ahead in order), and waited for when another thread is on it. A helper that fails
   * leaves its failure in the slot, thrown where the slot is needed.
   */
  private static final class Prepared<T> {
    private final List<Integer> batch;
    private final IntFunction<T> work;
    private final AtomicBoolean[] claimed;
    private final CompletableFuture<T>[] slots;
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean stopped;

    @SuppressWarnings("unchecked")
    Prepared(List<Integer> batch, IntFunction<T> work) {
      this.batch = batch;
      this.work = work;
      this.claimed = new AtomicBoolean[batch.size()];
      this.slots = new CompletableFuture[batch.size()];
      for (int b = 0; b < slots.length; b++) {
        claimed[b] = new AtomicBoolean();
        slots[b] = new CompletableFuture<>();
      }
    }

    /** The work of slot {@code b}, worked out now unless another thread is on it. */
    T get(int b) {
      if (claimed[b].compareAndSet(false, true)) {
        return run(b);
      }
      try {
        return slots[b].join();
      } catch (CompletionException e) {
        if (e.getCause() instanceof RuntimeException r) {
          throw r;
        }
        if (e.getCause() instanceof Error err) {
          throw err;
        }
        throw e;
      }
    }

    private T run(int b) {
      T t;
      try {
        t = work.apply(batch.get(b));
      } catch (RuntimeException | Error e) {
        slots[b].completeExceptionally(e);
        throw e;
      }
      slots[b].complete(t);
      return t;
    }

    /** A helper: the unclaimed slots in order, until the batch is done or no longer needed. */
    void workAhead() {
      for (int b = next.getAndIncrement();
          b < slots.length && !stopped;
          b = next.getAndIncrement()) {
        if (claimed[b].compareAndSet(false, true)) {
          try {
            run(b);
          } catch (RuntimeException | Error e) {
            // kept in the slot: thrown by get where the slot is needed
          }
        }
      }
    }

    /** No slot will be needed any more: helpers stop claiming. */
    void stop() {
      stopped = true;
    }
  }

  /** Mentions a stub keeps at most: error names, tests, paths with line numbers, ids. */
  static final int STUB_MENTIONS = 6;

  /** Code names a stub keeps at most, besides its mentions. */
  static final int STUB_NAMES = 8;

  /**
   * The identifiers still named in the view outside the stale candidates, worked out when the first
   * stub is made (a trim that stubs nothing pays nothing), then grown by what each stub lists: a
   * stub names only what the model could not read elsewhere.
   */
  private static final class StubNames {
    private final List<Message> source;
    private final List<Integer> stale;
    private Set<String> named;

    StubNames(List<Message> source, List<Integer> stale) {
      this.source = source;
      this.stale = stale;
    }

    /** The mentions and code names of {@code text} to keep, marked as named from now on. */
    String keep(String text) {
      if (named == null) {
        named = new HashSet<>();
        Set<Integer> candidates = new HashSet<>(stale);
        for (int i = 0; i < source.size(); i++) {
          if (!candidates.contains(i)) {
            named.addAll(Identifiers.of(source.get(i)));
          }
        }
      }
      List<String> mentions = new ArrayList<>();
      for (String mention : Identifiers.mentions(text, STUB_MENTIONS)) {
        if (named.add(mention)) {
          mentions.add(mention);
        }
      }
      List<String> codeNames = Identifiers.codeNames(text, STUB_NAMES, named);
      named.addAll(codeNames);
      StringBuilder sb = new StringBuilder();
      if (!mentions.isEmpty()) {
        sb.append("; mentioned: ").append(String.join(", ", mentions));
      }
      if (!codeNames.isEmpty()) {
        sb.append("; names: `").append(String.join("`, `", codeNames)).append('`');
      }
      return sb.toString();
    }
  }

  /**
   * @param tokens the tokens of the output, {@link TrimAnalysis#contentTokens}
   */
  private static Message stub(
      Message m, int tokens, ToolCall call, StubNames names, CompressionConfig config) {
    String kept = names.keep(m.content());
    String ref = config.archive().save(m, m.content());
    String content =
        "[Stale tool output pruned - "
            + tokens
            + " tokens"
            + kept
            + "]"
            + describe(call)
            + " "
            + ref
            + "\nYou can ask for it to be recovered if needed.";
    return rewrite(m, content, "stub", STUB);
  }

  /**
   * @param contentTokens the tokens of the output, {@link TrimAnalysis#contentTokens}
   */
  private static Message truncate(
      Message m, Truncation.Cut cut, int contentTokens, CompressionConfig config, ToolCall call) {
    int removedTokens = Math.max(1, contentTokens - cut.headTokens() - cut.tailTokens());
    String ref = config.archive().save(m, cut.removed());
    StringBuilder sb = new StringBuilder(cut.head().length() + cut.tail().length() + 200);
    sb.append(cut.head());
    if (!cut.head().isEmpty() && !cut.head().endsWith("\n")) {
      sb.append('\n');
    }
    sb.append("[... ")
        .append(removedTokens)
        .append(" tokens truncated (lines ")
        .append(cut.firstRemovedLine())
        .append('-')
        .append(cut.lastRemovedLine())
        .append(" of ")
        .append(cut.totalLines())
        .append(')');
    if (call != null) {
      sb.append(" of the output of").append(describe(call));
    }
    sb.append("; ").append(ref).append(" ...]");
    if (!cut.tail().isEmpty()) {
      sb.append('\n').append(cut.tail());
    }
    return rewrite(m, sb.toString(), "cut", TRUNCATED);
  }

  private static Message extract(
      Message m, ExtractiveCompression.Compressed c, CompressionConfig config) {
    String ref = config.archive().save(m, m.content());
    String content =
        c.text()
            + "\n\n[Extractive compression kept "
            + c.kept()
            + " of "
            + c.total()
            + " sentences; full text: "
            + ref
            + "]";
    return rewrite(m, content, "extract", EXTRACTIVE);
  }

  /** A copy of {@code m} with new content, a new id and the compaction mark. */
  static Message rewrite(Message m, String content, String idTag, String kind) {
    MessageMetadata md = m.metadata();
    Map<String, Object> extra = new LinkedHashMap<>(md.extra());
    extra.put(COMPACTED_KEY, kind);
    String id = m.id().value() + "~" + idTag + "-" + Digests.sha256Hex(content).substring(0, 8);
    return m.toBuilder()
        .id(id)
        .content(content)
        .metadata(new MessageMetadata(md.model(), md.provider(), md.usage(), md.input(), extra))
        .build();
  }

  /** " (name arguments)" of the call behind a result, clipped; empty when unknown. */
  private static String describe(ToolCall call) {
    if (call == null) {
      return "";
    }
    String args = call.arguments();
    if (args.length() > 4 * CALL_PREVIEW_CHARS) {
      args = args.substring(0, 4 * CALL_PREVIEW_CHARS);
    }
    String text = (call.name() + " " + SPACES.matcher(args).replaceAll(" ")).strip();
    if (text.length() > CALL_PREVIEW_CHARS) {
      int end = CALL_PREVIEW_CHARS;
      if (Character.isHighSurrogate(text.charAt(end - 1))) {
        end--;
      }
      text = text.substring(0, end) + "…";
    }
    return " (" + text + ")";
  }
}
