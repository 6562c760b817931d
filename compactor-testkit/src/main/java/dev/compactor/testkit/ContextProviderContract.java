package dev.compactor.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ViewBuilder;
import dev.compactor.core.message.Digests;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.ReasoningBlock;
import dev.compactor.core.message.Role;
import dev.compactor.core.message.ToolCall;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.core.view.ViewValidator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link ContextProvider} must keep, as a JUnit 5 test suite to extend.
 *
 * <p>Checked on hand-made edge cases and, property style, on several hundred generated agent
 * conversations ({@link ConversationGenerator}: parallel calls, reasoning, pinned messages, huge
 * outputs, unicode) at several limits, each result also compressed a second time:
 *
 * <ul>
 *   <li>the input list is not modified and the result is a complete list without nulls;
 *   <li>{@code sourceDigest} equals {@link Digests#roleAndContent} of the input; {@code
 *       coveredThrough} is in {@code [-1, input size - 1]};
 *   <li>a result message with a source id is that source message, unchanged and in source order; a
 *       changed message has a new id and a provenance entry naming the source message(s) it stands
 *       for; a replacement of one message keeps its role, tool calls, {@code toolCallId}, timestamp
 *       and reasoning blocks; no tool call is invented or altered; reasoning blocks are never
 *       rewritten; pinned messages are kept verbatim;
 *   <li>the result is valid under {@link ViewValidator} (every call has its results, parallel
 *       results stay together, timestamps do not go backwards); a pending last tool call stays the
 *       last message, verbatim;
 *   <li>{@link ViewBuilder#build} turns the result into a view of an {@link InMemoryConversation},
 *       whose messages equal the result's; {@link InMemoryConversation#recover} returns the
 *       original of every message no longer present verbatim, and for each synthesized message
 *       exactly the master messages behind its provenance;
 *   <li>the empty list gives an empty result and {@code shouldCompress} false; {@code
 *       shouldCompress} never modifies its input, with or without a limit;
 *   <li>concurrent calls on one instance are safe.
 * </ul>
 *
 * <p>Failures of the property runs name the seed and limit; rerun one with {@link
 * #assertContract(List, CompressionConfig)} on {@code ConversationGenerator.generate(seed,
 * options(seed))}. The number of seeds is {@link #seeds()} (default 300), or the system property
 * {@value #SEEDS_PROPERTY} for a deeper run.
 *
 * <p>Usage, in a plugin's tests:
 *
 * <pre>{@code
 * class MyProviderContractTest extends ContextProviderContract {
 *   @Override
 *   protected ContextProvider provider() {
 *     return new MyProvider();
 *   }
 * }
 * }</pre>
 *
 * <p>Not thread-safe itself (JUnit creates one instance per test method).
 */
public abstract class ContextProviderContract {

  /**
   * System property that overrides {@link #seeds()}, e.g. {@code -Dcompactor.contract.seeds=5000}.
   */
  public static final String SEEDS_PROPERTY = "compactor.contract.seeds";

  /** The provider under test. Called once per check; may return a shared instance. */
  protected abstract ContextProvider provider();

  /**
   * The configuration for a check at {@code limit} (null: no limit). Override to set {@code
   * extraConfig}, an archive or a token counter; keep {@code reasoningStripAgeThreshold} null
   * unless the provider is meant to strip reasoning (the reasoning checks assume it is off).
   */
  protected CompressionConfig config(Integer limit) {
    return CompressionConfig.builder().limit(limit).build();
  }

  /** Generated conversations per property run (default 300; see {@link #SEEDS_PROPERTY}). */
  protected int seeds() {
    return Integer.getInteger(SEEDS_PROPERTY, 300);
  }

  /**
   * The shape of the generated conversation of a seed: 0-59 steps with every feature on, huge
   * outputs rare enough to keep the suite fast.
   */
  protected ConversationGenerator.Options options(long seed) {
    return new ConversationGenerator.Options(
        (int) (seed % 60), 0.3, 0.4, 0.1, 0.02, true, seed % 7 == 3, 1 + (int) (seed % 6));
  }

  /**
   * The limits each generated conversation is checked at, given its token count: none, a quarter,
   * half, 90 % and twice its size, and 1 token.
   */
  protected List<Integer> limits(long tokens) {
    int t = (int) Math.min(Integer.MAX_VALUE / 2, Math.max(1, tokens));
    return Arrays.asList(
        null, Math.max(1, t / 4), Math.max(1, t / 2), Math.max(1, t * 9 / 10), t * 2, 1);
  }

  // ---------------------------------------------------------------------------------------------
  // The tests

  @Test
  protected void name_isNonBlank_andStable() {
    ContextProvider p = provider();
    assertThat(p.name()).as("name()").isNotBlank().doesNotContainAnyWhitespaces();
    assertThat(p.name()).as("name() called twice").isEqualTo(p.name());
  }

  @Test
  protected void emptyList_givesEmptyResult_andNeedsNoCompression() {
    for (Integer limit : Arrays.asList(null, 1, 1_000_000)) {
      CompressionConfig cfg = config(limit);
      assertThat(provider().shouldCompress(new ArrayList<>(), cfg))
          .as("shouldCompress([]) at limit %s", limit)
          .isFalse();
      CompactionResult r = provider().compress(new ArrayList<>(), cfg);
      assertThat(r).as("compress([]) at limit %s", limit).isNotNull();
      assertThat(r.messages()).as("messages of compress([])").isEmpty();
      assertThat(r.sourceDigest()).isEqualTo(Digests.roleAndContent(List.of()));
      assertThat(r.coveredThrough()).as("coveredThrough of compress([])").isEqualTo(-1);
    }
  }

  @Test
  protected void pendingLastToolCall_staysLastAndVerbatim() {
    for (long seed = 0; seed < 40; seed++) {
      List<Message> messages =
          ConversationGenerator.generate(seed, options(seed).withPendingLastCall(true));
      runAtEveryLimit(seed, messages);
    }
  }

  @Test
  protected void pinnedMessages_areKeptVerbatim() {
    for (long seed = 0; seed < 40; seed++) {
      List<Message> messages = pinSome(ConversationGenerator.generate(seed, options(seed)), seed);
      runAtEveryLimit(seed, messages);
    }
  }

  @Test
  protected void
      generatedConversations_keepEveryInvariant_atSeveralLimits_andAfterASecondCompaction() {
    int n = seeds();
    for (long seed = 0; seed < n; seed++) {
      runAtEveryLimit(seed, ConversationGenerator.generate(seed, options(seed)));
    }
  }

  @Test
  protected void concurrentCalls_onOneInstance_allKeepTheContract() throws Exception {
    ContextProvider shared = provider();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (long s = 0; s < 16; s++) {
        long seed = 1_000 + s;
        futures.add(
            pool.submit(
                () -> {
                  List<Message> m = ConversationGenerator.generate(seed, options(seed));
                  long tokens = config(null).counter().countMessages(m);
                  CompressionConfig cfg = config((int) Math.max(1, tokens / 2));
                  shared.shouldCompress(m, cfg);
                  check("seed " + seed + " (concurrent)", m, cfg, shared);
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The checks, usable on one's own conversations

  /**
   * Runs {@link #provider()}'s {@code shouldCompress} and {@code compress} on {@code input} with
   * {@code config} and checks every rule of this contract on the result, then compresses the
   * resulting view once more and checks that too.
   *
   * @throws AssertionError naming the broken rule
   */
  protected final void assertContract(List<Message> input, CompressionConfig config) {
    check("", input, config, provider());
  }

  private void runAtEveryLimit(long seed, List<Message> messages) {
    long tokens = config(null).counter().countMessages(messages);
    for (Integer limit : limits(tokens)) {
      check(
          "seed "
              + seed
              + " (ConversationGenerator.generate("
              + seed
              + "L, options("
              + seed
              + "L))), limit "
              + limit
              + " of "
              + tokens
              + " tokens, "
              + messages.size()
              + " messages",
          messages,
          config(limit),
          provider());
    }
  }

  private static void check(
      String context, List<Message> input, CompressionConfig config, ContextProvider provider) {
    String where = context.isEmpty() ? "" : context + ": ";
    try {
      InMemoryConversation conversation = new InMemoryConversation(new InMemoryMasterLog(input));
      // round() leaves the conversation on the view it built, so the second round compacts it.
      if (round(where + "first compaction: ", conversation, config, provider)) {
        round(where + "second compaction: ", conversation, config, provider);
      }
    } catch (AssertionError e) {
      throw e;
    } catch (RuntimeException e) {
      throw new AssertionError(where + "provider " + provider.name() + " threw " + e, e);
    }
  }

  /** One compaction of the active view; switches to the view built from it, if it changed. */
  private static boolean round(
      String where,
      InMemoryConversation conversation,
      CompressionConfig config,
      ContextProvider provider) {
    List<Message> source = conversation.activeMessages();
    List<Message> input = new ArrayList<>(source);
    provider.shouldCompress(input, config);
    assertThat(input).as(where + "shouldCompress modified its input").isEqualTo(source);

    CompactionResult result;
    try {
      result = provider.compress(input, config);
    } catch (RuntimeException e) {
      throw new AssertionError(where + "compress threw " + e, e);
    }
    assertThat(input).as(where + "compress modified its input").isEqualTo(source);
    assertThat(result).as(where + "compress returned null").isNotNull();
    List<Message> out = result.messages();
    assertThat(out).as(where + "result messages").isNotNull().doesNotContainNull();
    checkResult(where, source, config, result);

    if (out.equals(source)) {
      return false;
    }
    View before = conversation.activeView();
    View next;
    try {
      next = ViewBuilder.build(before, source, result, conversation.nextViewId());
    } catch (RuntimeException e) {
      throw new AssertionError(where + "ViewBuilder.build rejected the result: " + e, e);
    }
    checkView(where, conversation, before, source, result, next);
    return true;
  }

  private static void checkResult(
      String where, List<Message> source, CompressionConfig config, CompactionResult result) {
    List<Message> out = result.messages();
    assertThat(result.sourceDigest())
        .as(where + "sourceDigest must be Digests.roleAndContent(input)")
        .isEqualTo(Digests.roleAndContent(source));
    assertThat(result.coveredThrough())
        .as(where + "coveredThrough")
        .isBetween(-1, source.size() - 1);

    Map<MessageId, Integer> sourceIndex = new HashMap<>();
    for (int i = 0; i < source.size(); i++) {
      sourceIndex.put(source.get(i).id(), i);
    }
    Set<ToolCall> sourceCalls = new HashSet<>();
    Set<ReasoningBlock> sourceReasoning = new HashSet<>();
    for (Message m : source) {
      sourceCalls.addAll(m.toolCalls());
      sourceReasoning.addAll(m.reasoning());
    }
    Map<MessageId, List<MessageId>> provenance = result.provenance();
    Set<MessageId> seen = new HashSet<>();
    Set<MessageId> verbatim = new HashSet<>();
    int lastPosition = -1;
    for (int k = 0; k < out.size(); k++) {
      Message m = out.get(k);
      String at = where + "result message " + k + " (" + m.id() + ")";
      assertThat(seen.add(m.id())).as(at + " repeats an id").isTrue();
      Integer si = sourceIndex.get(m.id());
      List<MessageId> prov = provenance.get(m.id());
      int position;
      if (si != null) {
        assertThat(m)
            .as(at + " keeps a source id, so it must be that source message unchanged")
            .isEqualTo(source.get(si));
        assertThat(prov).as(at + " is a kept source message but has a provenance entry").isNull();
        verbatim.add(m.id());
        position = si;
      } else {
        assertThat(prov)
            .as(at + " is new (changed or synthesized) and must have a provenance entry")
            .isNotNull()
            .isNotEmpty();
        for (MessageId p : prov) {
          assertThat(sourceIndex)
              .as(at + " provenance names %s, which is not a source message", p)
              .containsKey(p);
        }
        position = -1;
        if (prov.size() == 1) {
          Message s = source.get(sourceIndex.get(prov.get(0)));
          String rep = at + " replaces " + s.id() + " and must keep its ";
          assertThat(s.pinned()).as(at + " replaces pinned message " + s.id()).isFalse();
          assertThat(m.role()).as(rep + "role").isEqualTo(s.role());
          assertThat(m.toolCallId()).as(rep + "toolCallId").isEqualTo(s.toolCallId());
          assertThat(m.toolCalls()).as(rep + "tool calls").isEqualTo(s.toolCalls());
          assertThat(m.timestamp()).as(rep + "timestamp").isEqualTo(s.timestamp());
          if (config.reasoningStripAgeThreshold() == null) {
            assertThat(m.reasoning()).as(rep + "reasoning blocks").isEqualTo(s.reasoning());
          }
          position = sourceIndex.get(s.id());
        }
      }
      if (position >= 0) {
        assertThat(position)
            .as(at + " is out of source order (source index %d after %d)", position, lastPosition)
            .isGreaterThan(lastPosition);
        lastPosition = position;
      }
      for (ToolCall c : m.toolCalls()) {
        assertThat(sourceCalls).as(at + " has a tool call not in the source: " + c).contains(c);
      }
      for (ReasoningBlock b : m.reasoning()) {
        assertThat(sourceReasoning)
            .as(at + " has a reasoning block that is not verbatim from the source")
            .contains(b);
      }
    }
    for (MessageId key : provenance.keySet()) {
      assertThat(seen).as(where + "provenance names %s, not a result message", key).contains(key);
    }
    for (Message s : source) {
      if (s.pinned()) {
        assertThat(verbatim)
            .as(where + "pinned message " + s.id() + " must be kept verbatim")
            .contains(s.id());
      }
    }
    ViewValidator validator = new ViewValidator();
    if (validator.isValid(source)) {
      assertThat(validator.validate(out)).as(where + "result violates view invariants").isEmpty();
    }
    Message pending = pendingLast(source);
    if (pending != null) {
      Message last = null;
      for (Message m : out) {
        if (!m.uiOnly()) {
          last = m;
        }
      }
      assertThat(last)
          .as(where + "the pending last tool call must stay last and verbatim")
          .isEqualTo(pending);
    }
  }

  private static void checkView(
      String where,
      InMemoryConversation conversation,
      View before,
      List<Message> source,
      CompactionResult result,
      View next) {
    Map<MessageId, List<MessageId>> coversBefore = new HashMap<>();
    for (int i = 0; i < source.size(); i++) {
      ViewEntry e = before.entries().get(i);
      coversBefore.put(
          source.get(i).id(),
          e instanceof ViewEntry.Synthesized s ? s.covers() : List.of(source.get(i).id()));
    }
    conversation.switchTo(next);
    assertThat(conversation.activeMessages())
        .as(where + "messages of the built view")
        .isEqualTo(result.messages());
    Set<MessageId> kept = new HashSet<>();
    for (Message m : result.messages()) {
      kept.add(m.id());
    }
    for (Message s : source) {
      if (kept.contains(s.id())) {
        continue;
      }
      List<MessageId> expected = coversBefore.get(s.id());
      assertThat(ids(conversation.recover(s.id())))
          .as(where + "recover(" + s.id() + ") of a message no longer present verbatim")
          .isEqualTo(expected);
    }
    for (ViewEntry e : next.entries()) {
      if (e instanceof ViewEntry.Synthesized s) {
        List<MessageId> prov = result.provenance().get(s.message().id());
        List<Message> recovered = conversation.recover(s.message().id());
        assertThat(recovered).as(where + "recover(" + s.message().id() + ")").isNotEmpty();
        if (prov != null) {
          Set<MessageId> expected = new LinkedHashSet<>();
          prov.forEach(p -> expected.addAll(coversBefore.get(p)));
          assertThat(ids(recovered))
              .as(
                  where
                      + "recover("
                      + s.message().id()
                      + ") must give the master messages behind its provenance "
                      + prov)
              .containsExactlyElementsOf(inMasterOrder(conversation, expected));
        }
      }
    }
  }

  private static List<MessageId> inMasterOrder(
      InMemoryConversation conversation, Set<MessageId> ids) {
    List<MessageId> out = new ArrayList<>(ids);
    out.sort(Comparator.comparingInt(id -> conversation.master().indexOf(id)));
    return out;
  }

  private static List<MessageId> ids(List<Message> messages) {
    return messages.stream().map(Message::id).toList();
  }

  /** The last sent message when it is an assistant message whose calls have no results yet. */
  private static Message pendingLast(List<Message> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      Message m = messages.get(i);
      if (m.uiOnly()) {
        continue;
      }
      return m.role() == Role.ASSISTANT && m.hasToolCalls() ? m : null;
    }
    return null;
  }

  /** Pins about one message in six, tool results and assistant calls included. */
  private static List<Message> pinSome(List<Message> messages, long seed) {
    Random random = new Random(seed);
    List<Message> out = new ArrayList<>(messages.size());
    for (Message m : messages) {
      out.add(random.nextInt(6) == 0 ? m.toBuilder().pinned(true).build() : m);
    }
    return out;
  }
}
