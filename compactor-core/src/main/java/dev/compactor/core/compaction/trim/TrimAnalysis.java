package dev.compactor.core.compaction.trim;

import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.compaction.text.TextFeatures;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the trim phases may touch in one message list, computed in two linear passes: token counts
 * (cached by the counter), the protected tail, the calls behind tool results, and the candidates of
 * each phase. "A file path of this output appears in a later message" is answered with one backward
 * pass that grows the set of paths seen after the current position, so the whole analysis is
 * O(total text), not O(n²).
 */
final class TrimAnalysis {
  /** Tool outputs below this many tokens are never stubbed. */
  static final int STALE_MIN_TOKENS = 200;

  /** Messages this close to the end (distance below) are relevant and never stubbed. */
  static final int RECENT_DISTANCE = 3;

  /** Assistant messages above this many tokens may be compressed extractively. */
  static final int EXTRACTIVE_MIN_TOKENS = 1000;

  final List<Message> messages;
  final int[] tokens;
  final long total;

  /** Index from which nothing is touched: the last user message, or a pending call. */
  final int protectedFrom;

  final int newestUser;

  final Map<String, ToolCall> calls;

  /** Phase 0: stale tool outputs, least relevant first (then oldest first). */
  final List<Integer> stale;

  /** Phase 2: tool outputs above the size limit, largest first. */
  final List<Integer> large;

  /** Phase 3: older assistant prose, oldest first. */
  final List<Integer> prose;

  /**
   * Phase 4: tool outputs that alone exceed the limit, the final step's included (not pinned, not
   * in the head, not the results of a pending call), largest first; empty without a limit.
   */
  final List<Integer> oversized;

  /** The tokens phase 4 allows an oversized output: {@code min(maxToolResultTokens, limit / 2)}. */
  final int oversizedAllowed;

  private final TokenCounter counter;

  /** The frame of each role's messages without reasoning and tool calls; -1 until counted. */
  private final int[] frames = new int[Role.values().length];

  TrimAnalysis(List<Message> messages, CompressionConfig config) {
    this.messages = messages;
    this.counter = config.counter();
    Arrays.fill(frames, -1);
    int n = messages.size();
    tokens = counter.countEach(messages);
    calls = new HashMap<>();
    int lastUser = -1;
    int lastCaller = -1;
    int lastStep = -1; // the final step starts at the last visible non-tool message
    long sum = 0;
    boolean any = false;
    for (int i = 0; i < n; i++) {
      Message m = messages.get(i);
      if (!m.uiOnly()) {
        sum += tokens[i];
        any = true;
        if (m.role() == Role.USER) {
          lastUser = i;
        }
        if (m.role() != Role.TOOL) {
          lastStep = i;
        }
        if (m.hasToolCalls()) {
          lastCaller = i;
          for (ToolCall c : m.toolCalls()) {
            calls.put(c.id(), c);
          }
        }
      }
    }
    total = any ? sum + counter.overhead().replyPriming() : 0;
    // Protected: the final step (its message and the tool results after it) and, below, the
    // newest user request. Everything older may be trimmed, so long autonomous agent loops
    // (one user request, hundreds of steps) can still be compacted.
    int prot = lastStep >= 0 ? lastStep : n;
    newestUser = lastUser;
    int pending = pendingCallIndex(messages, lastCaller);
    if (pending >= 0) {
      prot = Math.min(prot, pending);
    }
    protectedFrom = prot;

    int keepHead = Math.min(config.keepHead(), n);
    List<Integer> staleCandidates = new ArrayList<>();
    List<Integer> largeCandidates = new ArrayList<>();
    List<Integer> proseCandidates = new ArrayList<>();
    for (int i = keepHead; i < protectedFrom; i++) {
      Message m = messages.get(i);
      if (m.pinned() || m.uiOnly() || i == newestUser) {
        continue;
      }
      if (m.role() == Role.TOOL) {
        if (m.content().startsWith(MaskProvider.PLACEHOLDER_PREFIX)) {
          // A masking placeholder is already small, and its index of names is what later calls
          // need from the output: a stub of it would keep a few of them and lose the rest.
          continue;
        }
        if (tokens[i] >= STALE_MIN_TOKENS) {
          staleCandidates.add(i);
        }
        if (tokens[i] > config.maxToolResultTokens()) {
          largeCandidates.add(i);
        }
      } else if (m.role() == Role.ASSISTANT
          && n - 1 - i >= RECENT_DISTANCE
          && !m.hasToolCalls()
          && !hasThinking(m)
          && tokens[i] > EXTRACTIVE_MIN_TOKENS
          && !TrimProvider.EXTRACTIVE.equals(
              m.metadata().extra().get(TrimProvider.COMPACTED_KEY))) {
        proseCandidates.add(i);
      }
    }
    List<Integer> oversizedCandidates = new ArrayList<>();
    Integer limit = config.limit();
    int end = pending >= 0 ? pending : n;
    if (limit != null) {
      for (int i = keepHead; i < end; i++) {
        Message m = messages.get(i);
        if (m.role() == Role.TOOL && !m.pinned() && !m.uiOnly() && tokens[i] > limit) {
          oversizedCandidates.add(i);
        }
      }
      oversizedCandidates.sort(
          Comparator.comparingInt((Integer i) -> -tokens[i]).thenComparing(i -> i));
    }
    oversized = List.copyOf(oversizedCandidates);
    oversizedAllowed =
        limit == null ? 0 : Math.max(1, Math.min(config.maxToolResultTokens(), limit / 2));
    stale = staleOf(staleCandidates);
    largeCandidates.sort(Comparator.comparingInt((Integer i) -> -tokens[i]).thenComparing(i -> i));
    large = List.copyOf(largeCandidates);
    prose = List.copyOf(proseCandidates);
  }

  /**
   * Index of the last assistant message with calls when some of them still await results (whatever
   * messages follow it), else -1.
   */
  private static int pendingCallIndex(List<Message> messages, int caller) {
    if (caller < 0) {
      return -1;
    }
    Set<String> open = new HashSet<>();
    for (ToolCall c : messages.get(caller).toolCalls()) {
      open.add(c.id());
    }
    for (int j = caller + 1; j < messages.size(); j++) {
      Message m = messages.get(j);
      if (m.uiOnly()) {
        continue;
      }
      if (m.role() == Role.TOOL) {
        open.remove(m.toolCallId()); // whatever came in between, a result answers its call
      }
    }
    return open.isEmpty() ? -1 : caller;
  }

  /**
   * The stale candidates: relevance below 1.0, least relevant first. Relevance is 5.0 within {@link
   * #RECENT_DISTANCE} of the end, for outputs mentioning an error, and for outputs naming a file
   * path that a later message names too; otherwise {@code -min(0.15 × distance, 2.0)}.
   */
  private List<Integer> staleOf(List<Integer> candidates) {
    if (candidates.isEmpty()) {
      return List.of();
    }
    int n = messages.size();
    // Recent outputs and outputs mentioning an error are relevant; only the others need the
    // (costlier) "a file path of it is named later" check.
    boolean[] needsPathCheck = new boolean[n];
    int firstNeedy = -1;
    for (int i : candidates) {
      int distance = n - 1 - i;
      if (distance >= RECENT_DISTANCE
          && !TextFeatures.containsErrorWord(messages.get(i).content())) {
        needsPathCheck[i] = true;
        if (firstNeedy < 0) {
          firstNeedy = i;
        }
      }
    }
    if (firstNeedy < 0) {
      return List.of();
    }
    Set<String> later = new HashSet<>();
    Set<String> own = new HashSet<>();
    double[] relevance = new double[n];
    List<Integer> out = new ArrayList<>();
    for (int i = n - 1; i >= firstNeedy; i--) {
      Message m = messages.get(i);
      if (m.uiOnly()) {
        continue;
      }
      own.clear();
      TextFeatures.forEachFilePath(m.content(), true, own::add);
      for (ToolCall c : m.toolCalls()) {
        TextFeatures.forEachFilePath(c.arguments(), true, own::add);
      }
      if (needsPathCheck[i] && !anyIn(own, later)) {
        relevance[i] = -Math.min(0.15 * (n - 1 - i), 2.0);
        out.add(i);
      }
      later.addAll(own);
    }
    out.sort(Comparator.comparingDouble((Integer i) -> relevance[i]).thenComparing(i -> i));
    return List.copyOf(out);
  }

  private static boolean anyIn(Set<String> paths, Set<String> set) {
    for (String p : paths) {
      if (set.contains(p)) {
        return true;
      }
    }
    return false;
  }

  /** An opening {@code <think>} or {@code <thinking>} tag, as gptme and local models write them. */
  private static final java.util.regex.Pattern INLINE_THINKING =
      java.util.regex.Pattern.compile("<think(?:ing)?>");

  /**
   * Whether {@code m} carries reasoning: reasoning blocks, or inline {@code <think>}/{@code
   * <thinking>} blocks in its text (imported gptme content keeps them inline). Such a message is
   * never rewritten, so its reasoning is never broken and never counted as savings.
   */
  static boolean hasThinking(Message m) {
    if (!m.reasoning().isEmpty()) {
      return true;
    }
    String c = m.content();
    return c.indexOf("<think") >= 0 && INLINE_THINKING.matcher(c).find();
  }

  /**
   * Tokens of message {@code i}'s content alone: its count minus the count of the message without
   * content (its frame). A message counts its role, content, reasoning and tool calls only ({@link
   * TokenCounter}), so the frame of a message without reasoning and tool calls is that of its role,
   * counted once per role. Not thread-safe.
   */
  int contentTokens(int i) {
    Message m = messages.get(i);
    int frame;
    if (m.reasoning().isEmpty() && !m.hasToolCalls()) {
      int r = m.role().ordinal();
      if (frames[r] < 0) {
        frames[r] = counter.countMessage(m.withContent(""));
      }
      frame = frames[r];
    } else {
      frame = counter.countMessage(m.withContent(""));
    }
    return Math.max(0, tokens[i] - frame);
  }
}
