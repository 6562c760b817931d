package dev.compactor.core.compaction.text;

import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The identifier index of a checkpoint ({@link Identifiers#index}): the names the summarized span
 * used (file paths, function and class names, error names, quoted strings, long numbers — see
 * {@link Identifiers}) that neither the checkpoint text nor the kept messages name, so that the
 * model still knows them after the span is gone. A summary, extractive or written by a model, keeps
 * the gist; an agent's next step often needs an exact name from far back (a helper it read, a test
 * it ran, an option value), and with the name it can search or reload the rest.
 *
 * <p>Each identifier is listed once, in backticks, in the checkpoint's {@code Identifiers} section.
 * Ranked by use: a message of the user or the assistant naming it counts 2 (the assistant's own
 * commands, code and reasoning are what it builds on), a tool output 1, each message once, plus a
 * recency bonus of up to 3 for the last message that named it; ties go to the more recent one. The
 * identifiers of an earlier checkpoint in the span (its text and its index) are candidates like any
 * other, at its position, so names carry forward from checkpoint to checkpoint while used ones
 * outrank old ones. Bounded by a token budget (the caller's share of the limit): the lowest ranked
 * are left out. Deterministic.
 */
final class IdentifierIndex {
  private IdentifierIndex() {}

  /** Share of the limit the index may take. */
  static final double LIMIT_SHARE = 0.25;

  /** Tokens the index may take without a limit. */
  static final int DEFAULT_TOKENS = 1_500;

  /**
   * Weight of a quoted phrase (an identifier with a space: a command, a message) against a name.
   */
  static final double PHRASE = 0.5;

  /** Identifiers at most, whatever the budget. */
  static final int MAX_IDENTIFIERS = 1_200;

  /** Characters of covered text from which the identifiers are found on several threads. */
  static final long PARALLEL_CHARS = 1 << 20;

  /** The distinct identifiers of each message ({@link Identifiers#of}). */
  static List<List<String>> identifiersOf(List<Message> messages) {
    long chars = 0;
    for (Message m : messages) {
      chars += m.content().length();
    }
    IntFunction<List<String>> of =
        i -> {
          return Identifiers.of(messages.get(i));
        };
    IntStream range = IntStream.range(0, messages.size());
    return (chars >= PARALLEL_CHARS ? range.parallel() : range)
        .mapToObj(of)
        .collect(Collectors.toList());
  }

  /**
   * The index, in rank order.
   *
   * @param namedIds identifiers already named (e.g. the checkpoint's verified ones)
   * @param namedText text whose identifiers count as named (e.g. the checkpoint so far)
   * @param covered the summarized messages, oldest first
   * @param kept the messages the new view keeps besides the checkpoint
   * @param budgetTokens tokens the rendered index may take
   * @param counter counts the index
   * @return the identifiers to add, best first; empty when nothing fits
   */
  static List<String> build(
      Collection<String> namedIds,
      String namedText,
      List<Message> covered,
      List<Message> kept,
      long budgetTokens,
      TokenCounter counter) {
    if (budgetTokens <= 0) {
      return List.of();
    }
    Set<String> named = new HashSet<>(namedIds);
    Identifiers.forEach(namedText, named::add);
    for (Message m : kept) {
      named.addAll(Identifiers.of(m));
    }
    // Each message's identifiers are found independently (in parallel for a long span, where
    // this scan is most of a summary's cost), then ranked in order.
    int size = covered.size();
    List<List<String>> perMessage = identifiersOf(covered);
    Map<String, double[]> stats = new LinkedHashMap<>(); // weight, last position
    for (int pos = 0; pos < size; pos++) {
      Message m = covered.get(pos);
      double weight = m.role() == Role.TOOL || m.role() == Role.SYSTEM ? 1.0 : 2.0;
      for (String id : perMessage.get(pos)) {
        if (!named.contains(id) && Identifiers.listable(id)) {
          double[] s = stats.computeIfAbsent(id, k -> new double[2]);
          s[0] += id.indexOf(' ') >= 0 ? PHRASE * weight : weight;
          s[1] = pos;
        }
      }
    }
    if (stats.isEmpty()) {
      return List.of();
    }
    List<Map.Entry<String, double[]>> ranked = new ArrayList<>(stats.entrySet());
    double denominator = Math.max(1, size);
    ranked.sort(
        Comparator.comparingDouble(
                (Map.Entry<String, double[]> e) ->
                    -(e.getValue()[0] + 3.0 * (e.getValue()[1] + 1) / denominator))
            .thenComparingDouble(e -> -e.getValue()[1])
            .thenComparing(Map.Entry::getKey));
    List<String> out = new ArrayList<>();
    Map<String, Integer> cost = new HashMap<>();
    long used = counter.countText("\n## Identifiers\n");
    for (Map.Entry<String, double[]> e : ranked) {
      if (out.size() >= MAX_IDENTIFIERS) {
        break;
      }
      String id = e.getKey();
      // "`id`, " plus a share of the line's "- " and line break
      int tokens = cost.computeIfAbsent(id, k -> counter.countText("`" + k + "`, ") + 1);
      if (used + tokens > budgetTokens) {
        continue; // a shorter one may still fit
      }
      used += tokens;
      out.add(id);
    }
    return out;
  }
}
