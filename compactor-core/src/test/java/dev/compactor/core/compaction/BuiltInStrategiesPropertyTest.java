package dev.compactor.core.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.sample.ConversationGenerator;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import dev.compactor.core.view.ViewValidator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Both built-in strategies on thousands of generated conversations (parallel calls, thinking,
 * pinned messages, huge outputs, unicode, pending last calls, plus injected uiOnly status messages
 * and pinned tool results), with random limits, ratios, keepHead, tool-result limits and
 * keep_recent_tokens. Every result must be valid, keep the kept messages in order, build into a
 * view of an {@link InMemoryConversation}, and leave every removed master message recoverable. A
 * failure names the seed; rerun one with {@code -Dcompactor.seed=N}.
 */
class BuiltInStrategiesPropertyTest {
  private static final TokenCounter COUNTER = TokenCounters.estimate();
  private static final int SEEDS = Integer.getInteger("compactor.seeds", 2000);
  private static final Long ONLY = Long.getLong("compactor.seed");
  private static final ViewValidator GENERIC = new ViewValidator();
  private static final ViewValidator ANTHROPIC = new ViewValidator(ViewValidator.Target.ANTHROPIC);

  private final TrimProvider trim = new TrimProvider();
  private final SummarizeProvider summarize = new SummarizeProvider();

  private record Case(long seed, List<Message> messages, CompressionConfig config) {}

  private static Case generate(long seed) {
    Random r = new Random(seed * 31 + 7);
    ConversationGenerator.Options o =
        new ConversationGenerator.Options(
            1 + r.nextInt(60),
            0.3,
            0.4,
            0.1,
            seed % 10 == 0 ? 0.03 : 0.0, // huge outputs (thousands of lines) now and then
            true,
            r.nextInt(4) == 0,
            1 + r.nextInt(8));
    List<Message> generated = ConversationGenerator.generate(seed, o);
    List<Message> messages = new ArrayList<>(generated.size() + 4);
    for (Message m : generated) {
      if (m.role() == Role.TOOL && r.nextInt(20) == 0) {
        m = m.toBuilder().pinned(true).build();
      }
      messages.add(m);
      if (r.nextInt(25) == 0) {
        messages.add(
            Message.builder(r.nextBoolean() ? Role.SYSTEM : Role.ASSISTANT)
                .id("ui-" + messages.size())
                .content("status: compacting soon")
                .timestamp(m.timestamp())
                .uiOnly(true)
                .build());
      }
    }
    long total = COUNTER.countMessages(messages);
    Integer limit =
        r.nextInt(5) == 0 ? null : (int) Math.max(1, total * (0.05 + 0.95 * r.nextDouble()));
    int[] maxResult = {100, 300, 2000};
    int[] keepRecent = {0, 200, 2000, 20_000};
    CompressionConfig config =
        CompressionConfig.builder()
            .limit(limit)
            .maxToolResultTokens(maxResult[r.nextInt(maxResult.length)])
            .keepHead(r.nextInt(5))
            .trimTargetRatio(r.nextBoolean() ? 0.7 : 1.0)
            .counter(COUNTER)
            .archive((source, content) -> "saved " + source.id())
            .extraConfig(
                Map.of(
                    SummarizeProvider.KEEP_RECENT_TOKENS, keepRecent[r.nextInt(keepRecent.length)]))
            .build();
    return new Case(seed, List.copyOf(messages), config);
  }

  private static void forEachSeed(java.util.function.Consumer<Case> check) {
    forEachSeed(1, check);
  }

  /** Runs {@code check} on every {@code step}-th seed. */
  private static void forEachSeed(int step, java.util.function.Consumer<Case> check) {
    long from = ONLY == null ? 0 : ONLY;
    long to = ONLY == null ? SEEDS : ONLY + 1;
    for (long seed = from; seed < to; seed += ONLY == null ? step : 1) {
      Case c = generate(seed);
      try {
        check.accept(c);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "seed " + seed + " (rerun with -Dcompactor.seed=" + seed + "): " + e.getMessage(), e);
      }
    }
  }

  @Test
  void trim_keepsEveryInvariant_onThousandsOfGeneratedConversations() {
    forEachSeed(
        c -> {
          CompactionResult r = compressChecked(trim, c.messages(), c.config());
          List<Message> in = c.messages();
          List<Message> out = r.messages();
          assertThat(out).hasSameSizeAs(in);
          for (int i = 0; i < in.size(); i++) {
            Message a = in.get(i);
            Message b = out.get(i);
            assertThat(b.role()).isEqualTo(a.role());
            assertThat(b.timestamp()).isEqualTo(a.timestamp());
            assertThat(b.toolCallId()).isEqualTo(a.toolCallId());
            assertThat(b.toolCalls()).isEqualTo(a.toolCalls());
            assertThat(b.reasoning()).isEqualTo(a.reasoning());
            if (a.pinned() || a.uiOnly() || i < c.config().keepHead()) {
              assertThat(b).isEqualTo(a);
            }
          }
          Integer target = c.config().target();
          boolean reached = target == null || COUNTER.countMessages(out) <= target;
          assertThat(r.limitations().stream().anyMatch(l -> l.startsWith("target not reached")))
              .isEqualTo(!reached);
          buildViewAndRecover(in, r);
        });
  }

  @Test
  void summarize_keepsEveryInvariant_onThousandsOfGeneratedConversations() {
    forEachSeed(
        c -> {
          CompactionResult r = compressChecked(summarize, c.messages(), c.config());
          List<Message> out = r.messages();
          long checkpoints = out.stream().filter(SummarizeProvider::isCheckpoint).count();
          assertThat(checkpoints).isLessThanOrEqualTo(1);
          if (checkpoints == 1) {
            Message cp = out.stream().filter(SummarizeProvider::isCheckpoint).findFirst().get();
            assertThat(cp.role()).isEqualTo(Role.USER);
            assertThat(r.provenance().get(cp.id())).isNotEmpty();
            for (Message m : c.messages()) {
              if (m.pinned() && !m.uiOnly()) {
                assertThat(out).contains(m);
              }
            }
          }
          Integer limit = c.config().limit();
          if (limit != null && COUNTER.countMessages(out) > limit && checkpoints == 1) {
            assertThat(r.limitations()).anyMatch(l -> l.contains("does not fit the limit"));
          }
          buildViewAndRecover(c.messages(), r);
        });
  }

  @Test
  void trimThenSummarize_onChainedViews_everythingStaysRecoverable() {
    forEachSeed(
        8,
        c -> {
          InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog(c.messages()));
          for (ContextProvider p : List.of(trim, summarize, trim, summarize)) {
            List<Message> current = conv.activeMessages();
            CompactionResult r = compressChecked(p, current, c.config());
            View next = ViewBuilder.build(conv.activeView(), current, r, conv.nextViewId());
            conv.switchTo(next);
            assertThat(conv.activeMessages()).isEqualTo(r.messages());
            assertEveryMasterMessageRecoverable(conv);
          }
        });
  }

  /** Compresses and checks what holds for every strategy. */
  private static CompactionResult compressChecked(
      ContextProvider p, List<Message> in, CompressionConfig config) {
    List<Message> copy = List.copyOf(in);
    CompactionResult r = p.compress(in, config);
    assertThat(in).as("input unchanged").isEqualTo(copy);
    List<Message> out = r.messages();
    assertThat(GENERIC.validate(out)).as("%s: violations", p.name()).isEmpty();
    if (ANTHROPIC.isValid(in)) {
      assertThat(ANTHROPIC.validate(out)).as("%s: Anthropic violations", p.name()).isEmpty();
    }
    // kept messages keep their relative order; new ones name existing sources
    Map<MessageId, Integer> index = new HashMap<>();
    for (int i = 0; i < in.size(); i++) {
      index.put(in.get(i).id(), i);
    }
    int last = -1;
    Set<MessageId> seen = new HashSet<>();
    for (Message m : out) {
      assertThat(seen.add(m.id())).as("unique id %s", m.id()).isTrue();
      Integer i = index.get(m.id());
      if (i != null) {
        assertThat(m).isEqualTo(in.get(i));
        assertThat(i).as("order of %s", m.id()).isGreaterThan(last);
        last = i;
      } else {
        assertThat(r.provenance()).as("provenance of %s", m.id()).containsKey(m.id());
        assertThat(r.provenance().get(m.id())).isNotEmpty().allMatch(index::containsKey);
      }
    }
    assertThat(r.sourceDigest()).hasSize(64);
    assertThat(r.coveredThrough()).isEqualTo(in.size() - 1);
    return r;
  }

  private static void buildViewAndRecover(List<Message> in, CompactionResult r) {
    InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog(in));
    View next = ViewBuilder.build(conv.activeView(), conv.activeMessages(), r, conv.nextViewId());
    conv.switchTo(next);
    assertThat(conv.activeMessages()).isEqualTo(r.messages());
    assertEveryMasterMessageRecoverable(conv);
  }

  /** Every master message is either referenced by the active view or covered by an entry. */
  private static void assertEveryMasterMessageRecoverable(InMemoryConversation conv) {
    Set<MessageId> reachable = new HashSet<>();
    for (ViewEntry e : conv.activeView().entries()) {
      if (e instanceof ViewEntry.Ref ref) {
        reachable.add(ref.id());
      } else if (e instanceof ViewEntry.Synthesized s) {
        List<Message> originals = conv.recover(s.message().id());
        assertThat(originals).extracting(Message::id).isEqualTo(s.covers());
        for (Message o : originals) {
          assertThat(conv.master().get(o.id())).contains(o);
          reachable.add(o.id());
        }
      }
    }
    for (Message m : conv.master().messages()) {
      assertThat(reachable).as("master message %s recoverable", m.id()).contains(m.id());
    }
  }
}
