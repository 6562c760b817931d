package dev.compactor.log.compaction;

import static org.assertj.core.api.Assertions.assertThat;

import dev.compactor.core.compaction.CompactionResult;
import dev.compactor.core.compaction.CompressionConfig;
import dev.compactor.core.compaction.ContextProvider;
import dev.compactor.core.compaction.ProviderRegistry;
import dev.compactor.core.compaction.mask.MaskProvider;
import dev.compactor.core.compaction.summary.SummarizeProvider;
import dev.compactor.core.compaction.trim.TrimProvider;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.MessageId;
import dev.compactor.core.message.Role;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.policy.CompactionListener;
import dev.compactor.core.policy.CompactionOutcome;
import dev.compactor.core.policy.PendingCalls;
import dev.compactor.core.policy.PolicyContext;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.InMemoryConversation;
import dev.compactor.core.view.InMemoryMasterLog;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.log.imports.ImportResult;
import dev.compactor.log.imports.ImportedConversation;
import dev.compactor.log.imports.Importers;
import dev.compactor.testkit.corpus.SharedCorpus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every conversation of the shared corpus ({@code ../shared/corpus}; see its README for provenance)
 * compacted by each built-in strategy ({@code trim}, {@code mask}, {@code summarize}) and by the
 * automatic policy at budgets of 50 %, 25 % and 10 % of its own tokens. Every result must be valid
 * ({@link ViewValidator}, no violation ever). Where a result stays over the budget, the test works
 * out why from what is left (which protected or untouchable part of the view is the largest) and
 * prints a table of strategy × budget: reached, and the reasons when not. {@code summarize} and the
 * automatic policy must reach every budget unless the protected part of the view (the leading
 * system prompt, pinned messages and the final step) alone is over it.
 *
 * <p>The tau-bench file holds 200 conversations; every 10th is taken (20) to keep the run short.
 * Tokens are the default estimate (3 chars/token); {@code -Dcompactor.corpus.counter=cl100k} counts
 * with cl100k_base instead. Skipped, with a message, when the corpus is absent.
 */
class StrategiesAtBudgetsOnCorpusTest {
  private static final double[] FRACTIONS = {0.50, 0.25, 0.10};
  private static final List<String> STRATEGIES = List.of("trim", "mask", "summarize", "auto");
  private static final int TAU_BENCH_EVERY = 10;
  private static final int KEEP_HEAD = 0; // the default: only leading system messages are head
  private static final String MODEL = "corpus/none"; // no usage anchor matches: estimates only
  private static final TokenCounter COUNTER =
      "cl100k".equals(System.getProperty("compactor.corpus.counter"))
          ? TokenCounters.cl100k()
          : TokenCounters.estimate();
  private static final ViewValidator GENERIC = new ViewValidator();
  private static final ViewValidator ANTHROPIC = new ViewValidator(ViewValidator.Target.ANTHROPIC);
  private static final Pattern DOES_NOT_FIT =
      Pattern.compile("\\(head (\\d+), pinned (\\d+), kept tail (\\d+) tokens\\)");

  /** One compaction: which conversation, strategy and budget, and what came of it. */
  private record Run(
      String conversation,
      String strategy,
      double fraction,
      long tokens,
      long budget,
      long after,
      boolean reached,
      String why,
      boolean protectedOverBudget) {}

  @Test
  void everyCorpusConversation_atHalfQuarterAndTenthOfItsTokens_staysValid_andReachesWhatItCan()
      throws IOException {
    Path root = SharedCorpus.require("StrategiesAtBudgetsOnCorpusTest");
    List<Path> files = SharedCorpus.transcripts(root);
    assertThat(files).isNotEmpty();

    long t0 = System.nanoTime();
    List<Run> runs = new ArrayList<>();
    List<String> violations = new ArrayList<>();
    int conversations = 0;
    int pendingTails = 0;
    Map<String, Long> nanosByFolder = new TreeMap<>();
    for (Path file : files) {
      long f0 = System.nanoTime();
      ImportResult imported = Importers.read(file);
      List<ImportedConversation> all = imported.conversations();
      boolean tau = imported.format().equals("tau-bench");
      for (int k = 0; k < all.size(); k += tau ? TAU_BENCH_EVERY : 1) {
        ImportedConversation c = all.get(k);
        String name = root.relativize(file) + (all.size() > 1 ? " / " + c.name() : "");
        conversations++;
        if (withoutPendingTail(c.messages()) != c.messages()) {
          pendingTails++;
        }
        for (double f : FRACTIONS) {
          for (String strategy : STRATEGIES) {
            runs.add(run(name, c.messages(), strategy, f, violations));
          }
        }
      }
      nanosByFolder.merge(
          root.relativize(file).getName(0).toString(), System.nanoTime() - f0, Long::sum);
    }
    System.out.printf(
        Locale.ROOT,
        "%nStrategies at budgets on the corpus: %d files, %d conversations (tau-bench: every %dth"
            + " of 200), %d compactions, %s tokens, %.1f s; %d conversations end with a pending"
            + " tool call: the automatic policy runs after the turn before it%n",
        files.size(),
        conversations,
        TAU_BENCH_EVERY,
        runs.size(),
        COUNTER.name(),
        (System.nanoTime() - t0) / 1e9,
        pendingTails);
    nanosByFolder.forEach((k, v) -> System.out.printf(Locale.ROOT, "  %-15s %.1f s%n", k, v / 1e9));
    System.out.println(table(runs));

    assertThat(violations).as("view invariant violations").isEmpty();
    for (Run r : runs) {
      if ((r.strategy().equals("summarize") || r.strategy().equals("auto")) && !r.reached()) {
        assertThat(r.protectedOverBudget())
            .as(
                "%s must reach the budget of %s (%.0f %%) unless the protected part alone is over"
                    + " it: %s",
                r.strategy(), r.conversation(), 100 * r.fraction(), r.why())
            .isTrue();
      }
    }
  }

  private static Run run(
      String name, List<Message> conversation, String strategy, double fraction, List<String> bad) {
    List<Message> messages =
        strategy.equals("auto") ? withoutPendingTail(conversation) : conversation;
    long tokens = COUNTER.countMessages(messages);
    long budget = Math.max(1, (long) (tokens * fraction));
    CompressionConfig config =
        CompressionConfig.builder()
            .limit((int) Math.min(Integer.MAX_VALUE, budget))
            .keepHead(KEEP_HEAD)
            .counter(COUNTER)
            .build();
    List<Message> out;
    String why = "";
    boolean protectedOver = false;
    if (strategy.equals("auto")) {
      InMemoryConversation conv = new InMemoryConversation(new InMemoryMasterLog(messages));
      Instant last = Instant.EPOCH;
      for (Message m : messages) {
        if (m.timestamp() != null && m.timestamp().isAfter(last)) {
          last = m.timestamp();
        }
      }
      ProviderRegistry registry = ProviderRegistry.global();
      ContextProvider trim = registry.get(TrimProvider.NAME);
      AutoCompactor auto =
          new AutoCompactor(
              conv,
              trim,
              registry.get(SummarizeProvider.NAME),
              AutoCompactor.savingsOf(trim),
              AutoCompactor.Settings.DEFAULTS,
              Clock.fixed(last, ZoneOffset.UTC),
              CompactionListener.NONE);
      CompactionOutcome o = auto.afterTurn(PolicyContext.of(MODEL, budget, config));
      out = conv.activeMessages();
      if (o instanceof CompactionOutcome.Compacted c) {
        why = c.report().strategy() + ": " + String.join("; ", c.report().limitations());
      } else if (o instanceof CompactionOutcome.NotNeeded n) {
        why = "nothing done: " + n.reason();
      } else if (o instanceof CompactionOutcome.Failed f) {
        why = f.strategy() + " failed: " + f.reason();
      } else {
        why = "only reminded";
      }
      if (COUNTER.countMessages(out) > budget) {
        // Explained when a summary of the same messages (as the policy asks for it) is over the
        // budget only because of protected messages.
        CompressionConfig summary =
            config.toBuilder()
                .extraConfig(
                    Map.of(
                        SummarizeProvider.KEEP_RECENT_TOKENS,
                        (int) PolicyContext.DEFAULT_KEEP_RECENT_TOKENS))
                .build();
        CompactionResult r = registry.get(SummarizeProvider.NAME).compress(messages, summary);
        String protectedWhy = summarizeWhy(messages, r);
        protectedOver = protectedWhy != null;
        if (protectedOver) {
          why = protectedWhy;
        }
      }
    } else {
      ContextProvider p = ProviderRegistry.global().get(strategy);
      CompactionResult r = p.compress(messages, config);
      out = r.messages();
      switch (strategy) {
        case "trim" -> why = trimWhy(messages, out, config);
        case "mask" -> why = maskWhy(messages, out);
        default -> {
          String protectedWhy = summarizeWhy(messages, r);
          protectedOver = protectedWhy != null;
          why = protectedOver ? protectedWhy : String.join("; ", r.limitations());
        }
      }
    }
    long after = COUNTER.countMessages(out);
    String where = name + ", " + strategy + " at " + Math.round(100 * fraction) + " %";
    GENERIC.validate(out).forEach(v -> bad.add(where + ": " + v));
    if (ANTHROPIC.isValid(messages)) {
      ANTHROPIC.validate(out).forEach(v -> bad.add(where + " (Anthropic): " + v));
    }
    boolean reached = after <= budget;
    return new Run(
        name,
        strategy,
        fraction,
        tokens,
        budget,
        after,
        reached,
        reached ? "" : why,
        protectedOver);
  }

  /**
   * Why a summary is over the budget when only protected messages keep it there, checked against
   * the messages rather than taken from the limitation text: either the view was summarized and its
   * kept tail has shrunk to the final step (leading system messages, pinned messages and the final
   * step are never summarized), or nothing could be summarized because the conversation is only
   * those. Null when the summary is within the budget or over it for another reason.
   */
  private static String summarizeWhy(List<Message> source, CompactionResult r) {
    List<Message> out = r.messages();
    for (String l : r.limitations()) {
      Matcher m = DOES_NOT_FIT.matcher(l);
      if (l.contains("does not fit the limit") && m.find()) {
        long head = Long.parseLong(m.group(1));
        long pinned = Long.parseLong(m.group(2));
        long tail = Long.parseLong(m.group(3));
        if (tail != finalStepTokens(out, finalStart(out))) {
          return null; // the tail could have shrunk further
        }
        return "summarized, but the protected part alone is over the budget: "
            + largest(Map.of("system prompt", head, "pinned messages", pinned, "final step", tail));
      }
    }
    if (r.limitations().stream().anyMatch(l -> l.startsWith("nothing to summarize"))) {
      int finalStart = finalStart(source);
      long head = 0;
      boolean leading = true;
      for (int i = 0; i < finalStart; i++) {
        Message m = source.get(i);
        leading &= m.role() == Role.SYSTEM;
        if (!m.uiOnly() && !leading && !m.pinned()) {
          return null; // something could have been summarized
        }
        head += COUNTER.countMessage(m);
      }
      return "nothing to summarize: the conversation is only its protected part, "
          + largest(
              Map.of("system prompt", head, "final step", finalStepTokens(source, finalStart)));
    }
    return null;
  }

  /**
   * The conversation up to its last turn without pending tool calls: many trajectories end with an
   * assistant message whose calls have no results (the run stopped there), where the automatic
   * policy waits by design; it runs after the turn before.
   */
  static List<Message> withoutPendingTail(List<Message> messages) {
    if (!PendingCalls.any(messages)) {
      return messages;
    }
    int k = messages.size() - 1;
    while (k > 0 && !(messages.get(k).role() == Role.ASSISTANT && messages.get(k).hasToolCalls())) {
      k--;
    }
    return messages.subList(0, k);
  }

  /** Index of the final step: the last visible message that is not a tool result. */
  private static int finalStart(List<Message> messages) {
    int k = messages.size() - 1;
    while (k > 0 && (messages.get(k).uiOnly() || messages.get(k).role() == Role.TOOL)) {
      k--;
    }
    return Math.max(k, 0);
  }

  private static long finalStepTokens(List<Message> messages, int from) {
    long t = 0;
    for (int i = from; i < messages.size(); i++) {
      t += COUNTER.countMessage(messages.get(i));
    }
    return t;
  }

  /**
   * What trim left, by the reason it could not go further: the largest share of the remaining
   * tokens names why the budget was not reached.
   */
  private static String trimWhy(List<Message> source, List<Message> out, CompressionConfig cfg) {
    Set<MessageId> sourceIds = new HashSet<>();
    source.forEach(m -> sourceIds.add(m.id()));
    int finalStart = out.size() - 1;
    while (finalStart > 0
        && (out.get(finalStart).role() == Role.TOOL || out.get(finalStart).uiOnly())) {
      finalStart--;
    }
    int newestUser = -1;
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).role() == Role.USER && !out.get(i).uiOnly()) {
        newestUser = i;
      }
    }
    Map<String, Long> parts = new LinkedHashMap<>();
    for (int i = 0; i < out.size(); i++) {
      Message m = out.get(i);
      long t = COUNTER.countMessage(m);
      String part;
      if (!sourceIds.contains(m.id())) {
        part = "what stubs, cut outputs and extracts keep";
      } else if (i >= finalStart) {
        part = "final step (protected)";
      } else if (i == newestUser) {
        part = "newest user request (protected)";
      } else if (i < cfg.keepHead() || m.role() == Role.SYSTEM) {
        part = "system prompt/head";
      } else if (m.pinned()) {
        part = "pinned messages";
      } else if (m.role() == Role.USER) {
        part = "user messages (never trimmed)";
      } else if (m.role() == Role.ASSISTANT) {
        part = "assistant messages (with tool calls or reasoning, or short: never trimmed)";
      } else {
        part = "tool outputs kept (recent, naming an error or a path used later, or small)";
      }
      parts.merge(part, t, Long::sum);
    }
    return largest(parts);
  }

  /** What mask left: outputs it keeps, text it never touches, placeholders. */
  private static String maskWhy(List<Message> source, List<Message> out) {
    Set<MessageId> sourceIds = new HashSet<>();
    source.forEach(m -> sourceIds.add(m.id()));
    Map<String, Long> parts = new LinkedHashMap<>();
    int outputsFromEnd = 0;
    for (int i = out.size() - 1; i >= 0; i--) {
      Message m = out.get(i);
      long t = COUNTER.countMessage(m);
      String part;
      if (!sourceIds.contains(m.id())) {
        part = "placeholders";
      } else if (m.role() == Role.TOOL) {
        outputsFromEnd++;
        part =
            outputsFromEnd <= MaskProvider.DEFAULT_KEEP_LAST + MaskProvider.DEFAULT_BATCH - 1
                ? "the most recent tool outputs (keep_last 10, boundary moves in batches of 10)"
                : "small tool outputs (< 100 tokens) or head";
      } else {
        part = "user, assistant and system text (mask touches tool outputs only)";
      }
      parts.merge(part, t, Long::sum);
    }
    return largest(parts);
  }

  private static String largest(Map<String, Long> parts) {
    long total = parts.values().stream().mapToLong(Long::longValue).sum();
    return parts.entrySet().stream()
        .max(Map.Entry.comparingByValue())
        .map(
            e ->
                String.format(
                    Locale.ROOT,
                    "%s (%.0f %% of what is left)",
                    e.getKey(),
                    total == 0 ? 0.0 : 100.0 * e.getValue() / total))
        .orElse("");
  }

  /** strategy × budget: reached n/N, and the reasons when not, most frequent first. */
  private static String table(List<Run> runs) {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "%-10s %-7s %-9s %s%n",
            "strategy",
            "budget",
            "reached",
            "not reached: why (conversations, by corpus folder)"));
    for (String s : STRATEGIES) {
      for (double f : FRACTIONS) {
        List<Run> cell =
            runs.stream().filter(r -> r.strategy().equals(s) && r.fraction() == f).toList();
        long reached = cell.stream().filter(Run::reached).count();
        Map<String, Map<String, Integer>> why = new TreeMap<>();
        for (Run r : cell) {
          if (!r.reached()) {
            why.computeIfAbsent(
                    r.why().replaceAll(" \\(\\d+ % of what is left\\)", ""), k -> new TreeMap<>())
                .merge(r.conversation().split("/")[0], 1, Integer::sum);
          }
        }
        List<String> reasons = new ArrayList<>(why.keySet());
        reasons.sort(
            Comparator.comparingInt((String k) -> -total(why.get(k))).thenComparing(k -> k));
        List<String> lines = new ArrayList<>();
        for (String k : reasons) {
          lines.add(
              k
                  + " ("
                  + total(why.get(k))
                  + ": "
                  + why.get(k).entrySet().stream()
                      .map(e -> e.getKey() + " " + e.getValue())
                      .collect(Collectors.joining(", "))
                  + ")");
        }
        sb.append(
            String.format(
                Locale.ROOT,
                "%-10s %-7s %-9s %s%n",
                s,
                Math.round(100 * f) + " %",
                reached + "/" + cell.size(),
                lines.isEmpty() ? "" : lines.get(0)));
        for (int i = 1; i < lines.size(); i++) {
          sb.append(String.format(Locale.ROOT, "%-28s %s%n", "", lines.get(i)));
        }
      }
    }
    return sb.toString();
  }

  private static int total(Map<String, Integer> counts) {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }
}
