package dev.compactor.core.tokens;

import dev.compactor.core.message.InputFingerprint;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.PrefixDigester;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.Usage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.Objects;

/**
 * Measures how many tokens a conversation's next request will carry, anchored to the provider's own
 * count when possible.
 *
 * <p><b>The usage anchor.</b> Scanning from the end, the newest assistant message that is not
 * {@code uiOnly} and has both {@code metadata.usage} and {@code metadata.input} is the candidate.
 * It is valid only if {@code input.messageCount} equals its index in the list, {@code input.digest}
 * equals {@link dev.compactor.core.message.Digests#prefix} of the messages before it, {@code
 * input.model} is the current model, and the usage's total input is positive. Then the measurement
 * is {@code usage.totalInput()} (uncached + cache reads + cache writes, which includes provider
 * overhead such as system prompts and tool schemas a text estimate misses) plus the counter's
 * estimate of that response and every later non-uiOnly message. Otherwise — no candidate, or the
 * newest one fails a check (an edit, a compaction view, a model switch) — it is the estimate of
 * every non-uiOnly message plus reply priming, and {@link ContextMeasurement#rejectedReason()} says
 * why. Older candidates are not tried: the newest response is the only one that describes the
 * request about to be made. Anchors are keyed by the qualified {@code provider/model}: the
 * fingerprint's model, qualified with the response's {@code metadata.provider} when it names the
 * model alone. Names match case-insensitively; a bare current model matches the same name under any
 * provider ({@code gpt-4o} = {@code openai/gpt-4o}), but a stamped name of unknown provider never
 * matches a qualified current model, and {@code anthropic/x} never matches {@code openrouter/x}.
 *
 * <p><b>Cost.</b> The meter remembers the list it measured last. A call compares the new list with
 * it element by element by reference (falling back to {@code equals}): O(n) pointer comparisons,
 * about a microsecond per thousand messages. Only messages not seen before are counted (and counts
 * are cached by the counter anyway) and fed to an incremental SHA-256 of the prefix; the prefix
 * digest each candidate response needs is computed once, when the meter first sees that response,
 * from that running state. So after one more message a call costs O(n) reference comparisons plus
 * O(size of the new message) hashing and counting, and the anchor check itself is O(1) (token sums
 * are prefix sums). When a message at position j changed, the digest state is restored from the
 * nearest checkpoint at or before j (one is kept every {@value #CHECKPOINT_EVERY} messages) and
 * messages from there on are hashed again — except when only the last message changed (a retried or
 * re-streamed response), for which the state before it is kept. {@link #measureOnce} has no memory
 * and costs O(history).
 *
 * <p>Not thread-safe: use one meter per conversation. Example:
 *
 * <pre>{@code
 * ContextMeter meter = new ContextMeter(TokenCounters.forModel(model));
 * ContextMeasurement m = meter.measure(conversation.activeMessages(), model);
 * if (m.tokens() >= budget.tokens()) { ... compact ... }
 * }</pre>
 */
public final class ContextMeter {
  /** Messages between saved digest states. */
  public static final int CHECKPOINT_EVERY = 256;

  private final TokenCounter counter;
  private final ArrayList<Message> seen = new ArrayList<>();
  // tokens[i] = counted tokens of seen[0, i); visible[i] = non-uiOnly messages among them
  private long[] tokens = new long[64];
  private int[] visible = new int[64];
  // candidates: anchor candidates; prefixMatches: candidates whose input.digest equals the digest
  // of the messages before them
  private final BitSet candidates = new BitSet();
  private final BitSet prefixMatches = new BitSet();
  private PrefixDigester running = new PrefixDigester();
  // checkpoints.get(k): digest state after k * CHECKPOINT_EVERY messages
  private final ArrayList<PrefixDigester> checkpoints = new ArrayList<>();
  // digest state before the last message seen: replacing the last message (a streamed or edited
  // response, a retried turn) then needs no re-hashing
  private PrefixDigester beforeLast;

  /**
   * A meter that estimates with {@code counter}.
   *
   * @param counter the counter of the current model's family, never null
   */
  public ContextMeter(TokenCounter counter) {
    this.counter = Objects.requireNonNull(counter, "counter");
    checkpoints.add(running.copy());
  }

  /**
   * A one-off measurement with no memory between calls: O(history). When no message can anchor
   * (none is a response with usage and an input fingerprint), the estimate is made without
   * digesting the prefix.
   */
  public static ContextMeasurement measureOnce(
      List<Message> messages, String model, TokenCounter counter) {
    for (Message m : messages) {
      if (isCandidate(m)) {
        return new ContextMeter(counter).measure(messages, model);
      }
    }
    // No message can anchor: the estimate alone, without digesting every message's prefix.
    return ContextMeasurement.estimated(counter.countMessages(messages), NO_ANCHOR);
  }

  private static final String NO_ANCHOR =
      "no assistant message with provider usage and an input fingerprint";

  public TokenCounter counter() {
    return counter;
  }

  /**
   * Measures the input the next request over {@code messages} would carry.
   *
   * @param messages the stored messages as they would be sent (uiOnly ones are skipped), never null
   * @param model the model the next request goes to ({@code provider/model} or bare); null means
   *     unknown, which rejects any anchor
   * @return the measurement; never null
   */
  public ContextMeasurement measure(List<Message> messages, String model) {
    sync(messages);
    int n = seen.size();
    long estimateAll = tokens[n] + (visible[n] > 0 ? counter.overhead().replyPriming() : 0);
    int i = candidates.previousSetBit(n - 1);
    if (i < 0) {
      return ContextMeasurement.estimated(estimateAll, NO_ANCHOR);
    }
    Message anchor = seen.get(i);
    InputFingerprint input = anchor.metadata().input();
    Usage usage = anchor.metadata().usage();
    String reason = null;
    if (input.messageCount() != i) {
      reason =
          String.format(
              Locale.ROOT,
              "usage of message %d was reported for %d stored messages, but %d precede it",
              i,
              input.messageCount(),
              i);
    } else if (!prefixMatches.get(i)) {
      reason =
          String.format(
              Locale.ROOT,
              "the messages before message %d changed since its usage was reported"
                  + " (prefix digest differs)",
              i);
    } else if (model == null) {
      reason = "the current model is unknown";
    } else if (!sameModel(stampedModel(anchor), model)) {
      reason =
          String.format(
              Locale.ROOT,
              "the model changed from \"%s\" to \"%s\" since the usage of message %d",
              stampedModel(anchor),
              model,
              i);
    } else if (usage.totalInput() <= 0) {
      reason = String.format(Locale.ROOT, "the usage of message %d reports no input tokens", i);
    }
    if (reason != null) {
      return ContextMeasurement.estimated(estimateAll, reason);
    }
    return ContextMeasurement.anchored(i, usage.totalInput(), tokens[n] - tokens[i]);
  }

  /**
   * The qualified {@code provider/model} a response's usage was reported for: its fingerprint's
   * model, prefixed with the response's {@code metadata.provider} when the fingerprint names the
   * model alone (as older stamps and some imports do). A name that already starts with that
   * provider is kept; OpenRouter's {@code anthropic/claude-sonnet-4} becomes {@code
   * openrouter/anthropic/claude-sonnet-4}.
   */
  static String stampedModel(Message anchor) {
    String model = anchor.metadata().input().model();
    String provider = anchor.metadata().provider();
    return qualify(provider, model);
  }

  /** {@code provider/model}, unless {@code model} already starts with {@code provider/}. */
  public static String qualify(String provider, String model) {
    if (provider == null || provider.isBlank() || model == null) {
      return model;
    }
    String p = provider.strip();
    String m = model.strip();
    if (m.toLowerCase(Locale.ROOT).startsWith(p.toLowerCase(Locale.ROOT) + "/")) {
      return m;
    }
    return p + "/" + m;
  }

  /**
   * Whether the model a usage was reported for ({@code stamped}) is the current model ({@code
   * current}): the same name, case-insensitively. A bare current name (no provider) matches a
   * stamped {@code provider/name}; a bare stamped name, whose provider is unknown, never matches a
   * qualified current name, so usage reported by one provider is never reused for another
   * provider's model of the same name.
   */
  static boolean sameModel(String stamped, String current) {
    if (stamped == null || current == null) {
      return false;
    }
    String x = stamped.trim().toLowerCase(Locale.ROOT);
    String y = current.trim().toLowerCase(Locale.ROOT);
    if (x.equals(y)) {
      return true;
    }
    if (y.indexOf('/') < 0) {
      return x.substring(x.lastIndexOf('/') + 1).equals(y);
    }
    return false;
  }

  static boolean isCandidate(Message m) {
    return m.role() == Role.ASSISTANT
        && !m.uiOnly()
        && m.metadata().usage() != null
        && m.metadata().input() != null;
  }

  private void sync(List<Message> messages) {
    ListIterator<Message> it = messages.listIterator();
    int common = 0;
    int known = seen.size();
    Message pending = null;
    while (it.hasNext()) {
      Message m = it.next();
      if (common >= known) {
        pending = m;
        break;
      }
      Message old = seen.get(common);
      if (m != old) {
        if (!m.equals(old)) {
          pending = m;
          break;
        }
        seen.set(common, m); // identical value: compare by reference next time
      }
      common++;
    }
    if (common < known) {
      truncate(common);
    }
    if (pending != null) {
      append(pending);
      while (it.hasNext()) {
        append(it.next());
      }
    }
  }

  private void truncate(int k) {
    boolean onlyLast = k == seen.size() - 1 && beforeLast != null;
    seen.subList(k, seen.size()).clear();
    candidates.clear(k, Integer.MAX_VALUE);
    prefixMatches.clear(k, Integer.MAX_VALUE);
    int cp = k / CHECKPOINT_EVERY;
    checkpoints.subList(cp + 1, checkpoints.size()).clear();
    if (onlyLast) {
      running = beforeLast;
    } else {
      running = checkpoints.get(cp).copy();
      for (int i = cp * CHECKPOINT_EVERY; i < k; i++) {
        running.add(seen.get(i));
      }
    }
    beforeLast = null;
  }

  private void append(Message m) {
    int i = seen.size();
    if (isCandidate(m)) {
      candidates.set(i);
      if (running.digest().equals(m.metadata().input().digest())) {
        prefixMatches.set(i);
      }
    }
    beforeLast = running.copy();
    running.add(m);
    seen.add(m);
    if (i + 1 >= tokens.length) {
      tokens = Arrays.copyOf(tokens, tokens.length * 2);
      visible = Arrays.copyOf(visible, visible.length * 2);
    }
    tokens[i + 1] = tokens[i] + counter.countMessage(m);
    visible[i + 1] = visible[i] + (m.uiOnly() ? 0 : 1);
    if ((i + 1) % CHECKPOINT_EVERY == 0) {
      checkpoints.add(running.copy());
    }
  }
}
