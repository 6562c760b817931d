package dev.compactor.core.compaction.summary;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.text.Identifiers;
import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.MessageMetadata;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code summarize} strategy: replaces the older part of the conversation with one structured
 * {@link Checkpoint} and keeps the most recent {@code keep_recent_tokens} verbatim.
 *
 * <p>The new view is: the leading system messages (and the first {@code keepHead} messages), one
 * checkpoint message, the pinned messages of the summarized span (with their tool calls and
 * results), and the recent tail. The checkpoint is a {@link Role#USER} message (valid wherever it
 * lands, including as Anthropic's first non-system message) marked {@code metadata.extra.checkpoint
 * = true}; its provenance names every message it replaces, so each one is recoverable from the
 * master log. Its timestamp is that of the first message after the head, so timestamps stay in
 * order.
 *
 * <p>The tail is cut only between steps: an assistant message with tool calls and its results stay
 * together, so the tail never starts with a result whose call was summarized and parallel results
 * are never split; the final step (a pending tool call included) is always kept. When the
 * conversation has reasoning blocks, the tail starts at a user message or at an assistant message
 * with its reasoning, so a continued tool loop never loses its thinking block.
 *
 * <p>An earlier checkpoint inside the summarized span is parsed and handed to the {@link
 * Summarizer} as {@code previous}, to be carried forward rather than summarized as text. The
 * checkpoint is then verified: identifiers of the summarized span that the kept messages refer to
 * and the checkpoint misses are added to it (see {@code CheckpointVerifier}); then an index of the
 * other identifiers of the span that the new view would no longer name (file paths, function and
 * class names, error names, quoted strings), ranked by use and recency, is added within a share of
 * the limit ({@value #INDEX_SHARE}, default 25 %; see {@link Identifiers#index}).
 *
 * <p>With a limit, the view always aims to fit {@code config.limit()}: the tail shrinks first
 * (older steps are summarized into the checkpoint, carrying it forward), then the checkpoint is cut
 * with a visible {@value #CUT_MARKER} marker. Every lossy step is reported in {@link
 * CompactionResult#limitations()}, including a view that still cannot fit.
 *
 * <p>Options ({@code extraConfig}): {@value #KEEP_RECENT_TOKENS} (default {@value
 * #DEFAULT_KEEP_RECENT_TOKENS}), {@value #INDEX_SHARE} (the identifier index's share of the limit),
 * {@value #INSTRUCTIONS} (inline instructions) and {@value #COMPACT_INSTRUCTIONS} (project-wide
 * instructions, given first). Thread-safe when its summarizer is.
 */
public final class SummarizeProvider implements ContextProvider {
  /** The registered name. */
  public static final String NAME = "summarize";

  /** extraConfig key: tokens of recent history kept verbatim. */
  public static final String KEEP_RECENT_TOKENS = "keep_recent_tokens";

  /** Default of {@link #KEEP_RECENT_TOKENS}. */
  public static final int DEFAULT_KEEP_RECENT_TOKENS = 20_000;

  /**
   * extraConfig key: the share of the limit the checkpoint's identifier index may take, in [0, 1]
   * (default {@link Identifiers#INDEX_LIMIT_SHARE}); 0 lists no index. A host whose summaries are
   * re-sent as uncached input (a proxy in front of a prompt cache) may want a smaller index.
   */
  public static final String INDEX_SHARE = "identifier_index_share";

  /** extraConfig key: inline instructions for the summary. */
  public static final String INSTRUCTIONS = "instructions";

  /** extraConfig key: project-wide instructions for every summary. */
  public static final String COMPACT_INSTRUCTIONS = "compact_instructions";

  /** metadata.extra key that marks a checkpoint message (value {@code true}). */
  public static final String CHECKPOINT_KEY = "checkpoint";

  /** The marker put where a checkpoint was cut to fit the budget. */
  public static final String CUT_MARKER = Checkpoint.CUT_MARKER;

  /** Tokens set aside for the checkpoint when the tail is chosen under a limit. */
  static final int CHECKPOINT_RESERVE = 2000;

  private final Summarizer summarizer;

  /** With the offline {@link ExtractiveSummarizer}. */
  public SummarizeProvider() {
    this(new ExtractiveSummarizer());
  }

  public SummarizeProvider(Summarizer summarizer) {
    this.summarizer = Objects.requireNonNull(summarizer, "summarizer");
  }

  @Override
  public String name() {
    return NAME;
  }

  /** The summarizer in use. */
  public Summarizer summarizer() {
    return summarizer;
  }

  /**
   * True when there is a limit and the messages exceed it. A view of exactly {@code limit} tokens
   * fits, as {@link #compress} judges it when it fits its tail and checkpoint to the limit.
   */
  @Override
  public boolean shouldCompress(List<Message> messages, CompressionConfig config) {
    return config.limit() != null && config.counter().countMessages(messages) > config.limit();
  }

  /** True for a checkpoint message this strategy wrote ({@code metadata.extra.checkpoint}). */
  public static boolean isCheckpoint(Message m) {
    return Boolean.TRUE.equals(m.metadata().extra().get(CHECKPOINT_KEY));
  }

  /**
   * Summarizes.
   *
   * @throws SummarizationException when the summarizer fails or returns an empty checkpoint
   * @throws IllegalArgumentException when an extraConfig option has a bad value
   */
  @Override
  public CompactionResult compress(List<Message> messages, CompressionConfig config) {
    List<Message> src = List.copyOf(messages);
    int keepRecent = keepRecentTokens(config);
    double indexShare = indexShare(config);
    String instructions = instructions(config);
    int n = src.size();
    if (n == 0) {
      return CompactionResult.unchanged(src);
    }
    TokenCounter counter = config.counter();
    Integer limit = config.limit();
    long priming = counter.overhead().replyPriming();
    long[] prefix = new long[n + 1];
    int[] tok = new int[n];
    for (int i = 0; i < n; i++) {
      tok[i] = counter.countMessage(src.get(i));
      prefix[i + 1] = prefix[i] + tok[i];
    }
    int[] unitEnd = unitEnds(src);
    int[] unitStart = new int[n];
    for (int i = 0; i < n; i = unitEnd[i]) {
      for (int j = i; j < unitEnd[i]; j++) {
        unitStart[j] = i;
      }
    }

    // The head: leading system messages, widened to keepHead, never splitting a step.
    int lead = 0;
    while (lead < n && src.get(lead).role() == Role.SYSTEM && !isCheckpoint(src.get(lead))) {
      lead++;
    }
    int headEnd = Math.max(lead, Math.min(config.keepHead(), n));
    if (headEnd > 0 && headEnd < n) {
      headEnd = Math.max(headEnd, unitEnd[headEnd - 1]);
    }
    if (headEnd >= n) {
      return nothingToSummarize(src, "every message is in the protected head");
    }
    List<Integer> headKept = new ArrayList<>();
    List<Integer> coveredIdx = new ArrayList<>();
    long headTokens = 0;
    for (int i = 0; i < headEnd; i++) {
      if (isCheckpoint(src.get(i))) {
        coveredIdx.add(i); // an earlier checkpoint in the head is carried forward, not kept twice
      } else {
        headKept.add(i);
        headTokens += tok[i];
      }
    }

    // The tail: whole steps from the end, within keep_recent_tokens (and the limit). The final
    // step is that of the last visible message: trailing uiOnly messages (status lines) are not
    // a step of their own.
    int lastVisible = n - 1;
    while (lastVisible > 0 && src.get(lastVisible).uiOnly()) {
      lastVisible--;
    }
    int finalStart = unitStart[lastVisible];
    long pinnedEstimate = 0;
    for (int i = headEnd; i < finalStart; i = unitEnd[i]) {
      if (hasPinned(src, i, unitEnd[i])) {
        pinnedEstimate += prefix[unitEnd[i]] - prefix[i];
      }
    }
    boolean thinking = src.stream().anyMatch(m -> !m.reasoning().isEmpty());
    int keepStart =
        loopSafe(
            src,
            thinking,
            tailStart(finalStart, headEnd, keepRecent, unitStart, prefix),
            finalStart,
            unitEnd);
    int tailStart = keepStart;
    if (limit != null) {
      long reserve = Math.min(CHECKPOINT_RESERVE, limit / 4);
      long fitting = limit - headTokens - pinnedEstimate - reserve - priming;
      if (fitting < keepRecent) {
        tailStart =
            loopSafe(
                src,
                thinking,
                tailStart(finalStart, headEnd, fitting, unitStart, prefix),
                finalStart,
                unitEnd);
      }
    }

    // What is summarized and what is pinned.
    List<Integer> pinnedIdx = new ArrayList<>();
    for (int i = headEnd; i < tailStart; i = unitEnd[i]) {
      boolean pin = hasPinned(src, i, unitEnd[i]);
      for (int j = i; j < unitEnd[i]; j++) {
        (pin ? pinnedIdx : coveredIdx).add(j);
      }
    }
    if (coveredIdx.stream().allMatch(i -> src.get(i).uiOnly())) {
      return nothingToSummarize(
          src,
          "the messages after the protected head fit in keep_recent_tokens ("
              + keepRecent
              + ") or are pinned");
    }

    List<String> limitations = new ArrayList<>();
    Checkpoint previous = null;
    List<Message> input = new ArrayList<>();
    for (int i : coveredIdx) {
      Message m = src.get(i);
      if (isCheckpoint(m)) {
        previous = Checkpoint.parse(m.content());
      } else if (!m.uiOnly()) {
        input.add(m);
      }
    }
    Checkpoint cp = input.isEmpty() ? previous : call(input, previous, instructions);

    long pinnedTokens = 0;
    for (int i : pinnedIdx) {
      pinnedTokens += tok[i];
    }
    long tailTokens = prefix[n] - prefix[tailStart];
    Instant ts = firstTimestamp(src, headEnd);

    // Budget: shrink the tail first (summarizing the steps it drops into the checkpoint).
    if (limit != null) {
      Message draft = checkpointMessage(cp, src, coveredIdx, pinnedIdx, ts, null);
      long total = headTokens + pinnedTokens + tailTokens + priming + counter.countMessage(draft);
      if (total > limit && tailStart < finalStart) {
        List<Message> dropped = new ArrayList<>();
        while (total > limit && tailStart < finalStart) {
          int e =
              thinking
                  ? loopSafe(src, true, unitEnd[tailStart], finalStart, unitEnd)
                  : unitEnd[tailStart];
          for (int u = tailStart; u < e; u = unitEnd[u]) {
            boolean pin = hasPinned(src, u, unitEnd[u]);
            for (int j = u; j < unitEnd[u]; j++) {
              tailTokens -= tok[j];
              if (pin) {
                pinnedIdx.add(j);
                pinnedTokens += tok[j];
              } else {
                coveredIdx.add(j);
                total -= tok[j];
                if (!src.get(j).uiOnly()) {
                  dropped.add(src.get(j));
                }
              }
            }
          }
          tailStart = e;
        }
        if (!dropped.isEmpty()) {
          cp = call(dropped, cp, instructions);
        }
      }
    }
    if (tailStart > keepStart) {
      limitations.add(
          "kept tail shrunk from "
              + (prefix[n] - prefix[keepStart])
              + " to "
              + tailTokens
              + " tokens (keep_recent_tokens "
              + keepRecent
              + ") to fit the limit of "
              + limit
              + " tokens");
    }

    List<Message> coveredMsgs = new ArrayList<>(coveredIdx.size());
    for (int i : coveredIdx) {
      coveredMsgs.add(src.get(i));
    }
    List<Message> kept = new ArrayList<>();
    for (int i : pinnedIdx) {
      kept.add(src.get(i));
    }
    kept.addAll(src.subList(tailStart, n));

    CheckpointVerifier.Verified v = CheckpointVerifier.verify(cp, coveredMsgs, kept);
    cp = v.checkpoint();
    if (!v.added().isEmpty()) {
      limitations.add(
          "checkpoint verification added "
              + v.added().size()
              + " identifiers the summary had left out: "
              + String.join(", ", v.added().subList(0, Math.min(10, v.added().size())))
              + (v.added().size() > 10 ? ", …" : "")
              + (v.omitted() > 0 ? " (" + v.omitted() + " more not added)" : ""));
    }

    Message cpMsg = checkpointMessage(cp, src, coveredIdx, pinnedIdx, ts, null);
    long fixed = headTokens + pinnedTokens + tailTokens + priming;

    // The identifier index: names of the span that neither the checkpoint nor the kept messages
    // name, within a share of the limit and never pushing the checkpoint over it.
    long indexBudget = Identifiers.INDEX_DEFAULT_TOKENS;
    if (limit != null) {
      indexBudget =
          Math.min(Math.round(indexShare * limit), limit - fixed - counter.countMessage(cpMsg));
    }
    List<String> index =
        Identifiers.index(cp.identifiers(), cp.render(), coveredMsgs, kept, indexBudget, counter);
    if (!index.isEmpty()) {
      List<String> ids = new ArrayList<>(cp.identifiers());
      ids.addAll(index);
      cp = cp.withIdentifiers(ids);
      cpMsg = checkpointMessage(cp, src, coveredIdx, pinnedIdx, ts, null);
      limitations.add(
          "checkpoint lists "
              + index.size()
              + " more identifiers of the summarized span (an index of names the summary does"
              + " not mention)");
    }
    if (limit != null && fixed + counter.countMessage(cpMsg) > limit) {
      int full = counter.countMessage(cpMsg);
      cpMsg = cut(cp, src, coveredIdx, pinnedIdx, ts, limit - fixed, counter);
      limitations.add(
          "checkpoint cut to fit the budget: "
              + counter.countMessage(cpMsg)
              + " of "
              + full
              + " tokens kept");
    }
    long total = fixed + counter.countMessage(cpMsg);
    if (limit != null && total > limit) {
      limitations.add(
          "the summarized view does not fit the limit: "
              + total
              + " tokens with a limit of "
              + limit
              + " (head "
              + headTokens
              + ", pinned "
              + pinnedTokens
              + ", kept tail "
              + tailTokens
              + " tokens)");
    }
    int coveredCount = (int) coveredMsgs.stream().filter(m -> !m.uiOnly()).count();
    limitations.add(
        0,
        coveredCount
            + " messages ("
            + coveredMsgs.get(0).id()
            + " to "
            + coveredMsgs.get(coveredMsgs.size() - 1).id()
            + ") summarized into a checkpoint by "
            + summarizer.name()
            + (previous != null ? ", carrying the previous checkpoint forward" : "")
            + "; the originals stay in the master log");
    if (!pinnedIdx.isEmpty()) {
      limitations.add(pinnedIdx.size() + " pinned messages of the summarized span kept verbatim");
    }

    List<Message> out = new ArrayList<>();
    for (int i : headKept) {
      out.add(src.get(i));
    }
    out.add(cpMsg);
    pinnedIdx.sort(null);
    for (int i : pinnedIdx) {
      out.add(src.get(i));
    }
    out.addAll(src.subList(tailStart, n));
    coveredIdx.sort(null);
    List<MessageId> covers = new ArrayList<>(coveredIdx.size());
    for (int i : coveredIdx) {
      covers.add(src.get(i).id());
    }
    return CompactionResult.of(src, out, limitations, Map.of(cpMsg.id(), covers));
  }

  /**
   * The start of the longest run of whole steps that ends the conversation and has at most {@code
   * budget} tokens; the final step is always included.
   */
  private static int tailStart(
      int finalStart, int headEnd, long budget, int[] unitStart, long[] prefix) {
    int n = prefix.length - 1;
    int start = finalStart;
    while (start > headEnd) {
      int us = unitStart[start - 1];
      if (us < headEnd || prefix[n] - prefix[us] > budget) {
        break;
      }
      start = us;
    }
    return start;
  }

  /**
   * With reasoning in the conversation, a tail must not start inside a tool loop whose opening
   * message (and its reasoning) is summarized: Anthropic rejects a continued loop without its
   * thinking block. Moves the start forward to a user message or an assistant message that carries
   * reasoning; never past the final step.
   */
  private static int loopSafe(
      List<Message> src, boolean thinking, int start, int finalStart, int[] unitEnd) {
    if (!thinking) {
      return start;
    }
    int s = start;
    while (s < finalStart) {
      Message m = src.get(s);
      if (!m.uiOnly()
          && (m.role() == Role.USER || (m.role() == Role.ASSISTANT && !m.reasoning().isEmpty()))) {
        break;
      }
      s = unitEnd[s];
    }
    return s;
  }

  private static CompactionResult nothingToSummarize(List<Message> src, String why) {
    return CompactionResult.of(src, src, List.of("nothing to summarize: " + why), Map.of());
  }

  private Checkpoint call(List<Message> input, Checkpoint previous, String instructions) {
    Checkpoint cp;
    try {
      cp = summarizer.summarize(List.copyOf(input), previous, instructions);
    } catch (SummarizationException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new SummarizationException(
          "summarizer "
              + summarizer.name()
              + " failed on "
              + input.size()
              + " messages: "
              + SummarizationException.describe(e),
          e);
    }
    if (cp == null || cp.isEmpty()) {
      throw new SummarizationException(
          "summarizer "
              + summarizer.name()
              + " returned an empty checkpoint for "
              + input.size()
              + " messages; the view is left as it was");
    }
    return cp;
  }

  /** The end (exclusive) of the step each message belongs to: a call with its results, or one. */
  private static int[] unitEnds(List<Message> src) {
    int n = src.size();
    int[] end = new int[n];
    int i = 0;
    while (i < n) {
      int j = i + 1;
      Message m = src.get(i);
      if (m.role() == Role.ASSISTANT && m.hasToolCalls()) {
        while (j < n && (src.get(j).role() == Role.TOOL || src.get(j).uiOnly())) {
          j++;
        }
        while (j > i + 1 && src.get(j - 1).uiOnly()) {
          j--;
        }
      }
      for (int k = i; k < j; k++) {
        end[k] = j;
      }
      i = j;
    }
    return end;
  }

  private static boolean hasPinned(List<Message> src, int from, int to) {
    for (int i = from; i < to; i++) {
      if (src.get(i).pinned()) {
        return true;
      }
    }
    return false;
  }

  /** The first timestamp at or after {@code from}: no later-placed message is older. */
  private static Instant firstTimestamp(List<Message> src, int from) {
    for (int i = from; i < src.size(); i++) {
      if (src.get(i).timestamp() != null) {
        return src.get(i).timestamp();
      }
    }
    return null;
  }

  private String header(List<Message> src, List<Integer> coveredIdx, List<Integer> pinnedIdx) {
    int first = Integer.MAX_VALUE;
    int last = -1;
    int count = 0;
    for (int i : coveredIdx) {
      if (!src.get(i).uiOnly()) {
        first = Math.min(first, i);
        last = Math.max(last, i);
        count++;
      }
    }
    return "[Checkpoint: "
        + count
        + " earlier messages ("
        + src.get(first).id()
        + " to "
        + src.get(last).id()
        + ") were summarized here by "
        + summarizer.name()
        + "; the originals are kept in the master log."
        + (pinnedIdx.isEmpty() ? "" : " Pinned messages of that span follow verbatim.")
        + "]";
  }

  private Message checkpointMessage(
      Checkpoint cp,
      List<Message> src,
      List<Integer> coveredIdx,
      List<Integer> pinnedIdx,
      Instant ts,
      String body) {
    return checkpointMessage(
        header(src, coveredIdx, pinnedIdx) + "\n\n" + (body == null ? cp.render() : body),
        src,
        coveredIdx,
        ts);
  }

  /**
   * The checkpoint message. Its id hashes the content and the ids it covers: two checkpoints with
   * the same text (a cut one with the short header, say) covering different messages must differ.
   * Messages only a user interface shows (compaction notices, whose ids are random) are left out,
   * so the same conversation gets the same checkpoint ids in every run.
   */
  private Message checkpointMessage(
      String content, List<Message> src, List<Integer> coveredIdx, Instant ts) {
    StringBuilder identity = new StringBuilder(content);
    for (int i : coveredIdx) {
      if (!src.get(i).uiOnly()) {
        identity.append('\u0000').append(src.get(i).id().value());
      }
    }
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put(CHECKPOINT_KEY, true);
    extra.put("summarizer", summarizer.name());
    extra.put("covered_messages", coveredIdx.size());
    return Message.builder(Role.USER)
        .id("checkpoint-" + Digests.sha256Hex(identity.toString()).substring(0, 12))
        .content(content)
        .timestamp(ts)
        .metadata(new MessageMetadata(null, null, null, null, extra))
        .build();
  }

  /**
   * The checkpoint message cut to at most {@code available} tokens, section by section: every
   * heading stays, a section that fits its share stays whole (small sections first, their unused
   * share going to the others), and a longer one keeps the head (about 70 %) and the tail (about 30
   * %) of its text around a {@link #CUT_MARKER} line, so a long one-paragraph objective keeps its
   * beginning and its end rather than being dropped.
   */
  private Message cut(
      Checkpoint cp,
      List<Message> src,
      List<Integer> coveredIdx,
      List<Integer> pinnedIdx,
      Instant ts,
      long available,
      TokenCounter counter) {
    Message frame = checkpointMessage(cp, src, coveredIdx, pinnedIdx, ts, CUT_MARKER);
    long budget = available - counter.countMessage(frame);
    List<String[]> sections = sections(cp.render());
    for (int attempt = 0; attempt < 6 && budget > 0; attempt++) {
      String body = fitSections(sections, budget, counter);
      Message m = checkpointMessage(cp, src, coveredIdx, pinnedIdx, ts, body);
      int over = counter.countMessage(m) - (int) available;
      if (over <= 0) {
        return m;
      }
      budget -= over + 2;
    }
    if (counter.countMessage(frame) <= available) {
      return frame;
    }
    // Not even the header (which names the first and last covered ids) fits: a shorter one.
    Message compact =
        checkpointMessage(
            "[Checkpoint: "
                + coveredIdx.stream().filter(i -> !src.get(i).uiOnly()).count()
                + " earlier messages summarized; originals in the master log.]\n\n"
                + CUT_MARKER,
            src,
            coveredIdx,
            ts);
    return counter.countMessage(compact) < counter.countMessage(frame) ? compact : frame;
  }

  /** The rendered checkpoint as (heading line, body text) pairs, in order. */
  static List<String[]> sections(String rendered) {
    List<String[]> out = new ArrayList<>();
    String heading = null;
    StringBuilder body = new StringBuilder();
    for (String line : rendered.split("\n", -1)) {
      if (line.startsWith("## ")) {
        if (heading != null || body.length() > 0) {
          out.add(new String[] {heading == null ? "" : heading, body.toString().strip()});
        }
        heading = line;
        body.setLength(0);
      } else {
        body.append(line).append('\n');
      }
    }
    if (heading != null || body.length() > 0) {
      out.add(new String[] {heading == null ? "" : heading, body.toString().strip()});
    }
    return out;
  }

  /**
   * The sections within about {@code budget} tokens: headings always, bodies within shares of what
   * is left (see {@link #cut}).
   */
  static String fitSections(List<String[]> sections, long budget, TokenCounter counter) {
    int n = sections.size();
    long[] bodyTokens = new long[n];
    long remaining = budget;
    for (int i = 0; i < n; i++) {
      remaining -= counter.countText(sections.get(i)[0] + "\n") + 1;
      bodyTokens[i] = counter.countText(sections.get(i)[1]);
    }
    long marker = counter.countText(CUT_MARKER + "\n") + 1;
    boolean[] whole = new boolean[n];
    int open = n;
    boolean changed = true;
    while (changed && open > 0) {
      changed = false;
      long share = Math.max(0, remaining) / open;
      for (int i = 0; i < n; i++) {
        if (!whole[i] && bodyTokens[i] <= share) {
          whole[i] = true;
          remaining -= bodyTokens[i];
          open--;
          changed = true;
        }
      }
    }
    long share = open == 0 ? 0 : Math.max(0, remaining) / open;
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      String[] sec = sections.get(i);
      if (!sec[0].isEmpty()) {
        sb.append(sec[0]).append('\n');
      }
      sb.append(whole[i] ? sec[1] : clip(sec[1], share - marker, counter)).append("\n\n");
    }
    return sb.toString().stripTrailing();
  }

  /**
   * {@code text} within about {@code tokens} tokens: its head (70 %) and tail (30 %), cut at
   * whitespace where there is some, around a {@link #CUT_MARKER} line; the marker alone when
   * nothing fits.
   */
  static String clip(String text, long tokens, TokenCounter counter) {
    int total = counter.countText(text);
    if (total <= tokens) {
      return text;
    }
    if (tokens <= 0) {
      return CUT_MARKER;
    }
    int len = text.length();
    double charsPerToken = len / (double) Math.max(1, total);
    double scale = 1.0;
    for (int attempt = 0; attempt < 6; attempt++) {
      int headChars = (int) (0.7 * tokens * charsPerToken * scale);
      int tailChars = (int) (0.3 * tokens * charsPerToken * scale);
      int headEnd = wordEnd(text, Math.min(len, headChars));
      int tailStart = wordStart(text, Math.max(headEnd, len - tailChars));
      String head = text.substring(0, headEnd).stripTrailing();
      String tail = text.substring(tailStart).stripLeading();
      if (counter.countText(head) + counter.countText(tail) <= tokens || attempt == 5) {
        StringBuilder sb = new StringBuilder();
        if (!head.isEmpty()) {
          sb.append(head).append('\n');
        }
        sb.append(CUT_MARKER);
        if (!tail.isEmpty()) {
          sb.append('\n').append(tail);
        }
        return sb.toString();
      }
      scale *= 0.8;
    }
    return CUT_MARKER;
  }

  /** The last whitespace at or before {@code i} (past the first fifth of it), else {@code i}. */
  private static int wordEnd(String text, int i) {
    for (int j = i; j > i * 4 / 5; j--) {
      if (j < text.length() && Character.isWhitespace(text.charAt(j))) {
        return j;
      }
    }
    return safe(text, i);
  }

  /** The first whitespace at or after {@code i} (within a fifth of the rest), else {@code i}. */
  private static int wordStart(String text, int i) {
    int limit = i + (text.length() - i) / 5;
    for (int j = i; j < limit; j++) {
      if (Character.isWhitespace(text.charAt(j))) {
        return j;
      }
    }
    return safe(text, i);
  }

  private static int safe(String text, int i) {
    if (i > 0 && i < text.length() && Character.isLowSurrogate(text.charAt(i))) {
      return i - 1;
    }
    return i;
  }

  /** {@value #KEEP_RECENT_TOKENS} from extraConfig: a whole number of tokens >= 0. */
  static int keepRecentTokens(CompressionConfig config) {
    Object v = config.extraConfig().get(KEEP_RECENT_TOKENS);
    if (v == null) {
      return DEFAULT_KEEP_RECENT_TOKENS;
    }
    long value;
    if (v instanceof Number num) {
      double d = num.doubleValue();
      if (d != Math.rint(d) || Double.isInfinite(d)) {
        throw badKeepRecent(v);
      }
      value = num.longValue();
    } else if (v instanceof String s) {
      try {
        value = Long.parseLong(s.strip().replace("_", ""));
      } catch (NumberFormatException e) {
        throw badKeepRecent(v);
      }
    } else {
      throw badKeepRecent(v);
    }
    if (value < 0 || value > Integer.MAX_VALUE) {
      throw badKeepRecent(v);
    }
    return (int) value;
  }

  private static IllegalArgumentException badKeepRecent(Object v) {
    return new IllegalArgumentException(
        "extraConfig "
            + KEEP_RECENT_TOKENS
            + " must be a whole number of tokens >= 0, got "
            + (v instanceof String ? "\"" + v + "\"" : String.valueOf(v)));
  }

  /** The {@value #INDEX_SHARE} option, or the default share. */
  static double indexShare(CompressionConfig config) {
    Object v = config.extraConfig().get(INDEX_SHARE);
    if (v == null) {
      return Identifiers.INDEX_LIMIT_SHARE;
    }
    double share;
    if (v instanceof Number num) {
      share = num.doubleValue();
    } else if (v instanceof String s) {
      try {
        share = Double.parseDouble(s.strip());
      } catch (NumberFormatException e) {
        share = Double.NaN;
      }
    } else {
      share = Double.NaN;
    }
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException(
          "extraConfig "
              + INDEX_SHARE
              + " must be a share of the limit in [0, 1], got "
              + (v instanceof String ? "\"" + v + "\"" : v));
    }
    return share;
  }

  /** Project-wide instructions, then inline ones, or null when there are none. */
  static String instructions(CompressionConfig config) {
    String project = text(config, COMPACT_INSTRUCTIONS);
    String inline = text(config, INSTRUCTIONS);
    if (project == null) {
      return inline;
    }
    return inline == null ? project : project + "\n\n" + inline;
  }

  private static String text(CompressionConfig config, String key) {
    Object v = config.extraConfig().get(key);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String s)) {
      throw new IllegalArgumentException(
          "extraConfig " + key + " must be text, got " + v.getClass().getSimpleName() + " " + v);
    }
    return s.isBlank() ? null : s.strip();
  }
}
