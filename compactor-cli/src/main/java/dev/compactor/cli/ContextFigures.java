package dev.compactor.cli;

import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.policy.AutoCompactor;
import dev.compactor.core.tokens.ContextMeasurement;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.view.Conversation;
import dev.compactor.core.view.View;
import dev.compactor.core.view.ViewEntry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the tokens of a conversation's active view are, as {@code /context} of {@code compactor
 * chat} shows them: by role, tool calls and outputs, the usage anchor, the view's synthesized
 * entries, the budget and how far the reminder and the next compaction are. The counts are those of
 * {@code compactor inspect} for the same conversation directory: each provider-visible message
 * counted once with the model's counter (UI-only ones not at all), the context measured by {@link
 * ContextMeter#measureOnce}.
 *
 * @param tokens sum of the per-message counts (inspect's {@code tokens})
 * @param byRole messages and tokens per role, in role order
 * @param measured the context as the policy measures it (inspect's {@code anchor})
 * @param synthesized entries of the view a compaction synthesized (stubs, checkpoints, markers)
 * @param synthesizedTokens their tokens
 * @param covered master messages they stand for
 * @param reminderSent whether the 90 % reminder was sent for the active view
 */
record ContextFigures(
    String model,
    String tokenizer,
    int messages,
    int uiOnly,
    long tokens,
    Map<String, RoleCount> byRole,
    long toolCalls,
    long toolResults,
    long toolOutputTokens,
    ContextMeasurement measured,
    ResolvedBudget budget,
    String viewId,
    int views,
    int masterMessages,
    int synthesized,
    long synthesizedTokens,
    int covered,
    boolean reminderSent) {

  /** Messages and tokens of one role. */
  record RoleCount(long messages, long tokens) {}

  /** The figures of {@code conversation}'s active view. */
  static ContextFigures of(
      Conversation conversation, String model, TokenCounter counter, ResolvedBudget budget) {
    View view = conversation.activeView();
    List<Message> active = conversation.activeMessages();
    Map<String, long[]> roles = new LinkedHashMap<>();
    for (Role r : Role.values()) {
      roles.put(r.wireName(), new long[2]);
    }
    int[] each = counter.countEach(active);
    long tokens = 0;
    long calls = 0;
    long results = 0;
    long outputTokens = 0;
    int uiOnly = 0;
    for (int i = 0; i < each.length; i++) {
      Message m = active.get(i);
      if (m.uiOnly()) {
        uiOnly++;
        continue;
      }
      tokens += each[i];
      long[] slot = roles.get(m.role().wireName());
      slot[0]++;
      slot[1] += each[i];
      calls += m.toolCalls().size();
      if (m.role() == Role.TOOL) {
        results++;
        outputTokens += each[i];
      }
    }
    Map<String, RoleCount> byRole = new LinkedHashMap<>();
    roles.forEach((k, v) -> byRole.put(k, new RoleCount(v[0], v[1])));
    int synthesized = 0;
    long synthesizedTokens = 0;
    int covered = 0;
    for (ViewEntry e : view.entries()) {
      if (e instanceof ViewEntry.Synthesized s && !s.message().uiOnly()) {
        synthesized++;
        synthesizedTokens += counter.countMessage(s.message());
        covered += s.covers().size();
      }
    }
    boolean reminded = false;
    for (Message m : conversation.master().messages()) {
      if (view.id().equals(m.metadata().extra().get(AutoCompactor.REMINDER_KEY))) {
        reminded = true;
        break;
      }
    }
    return new ContextFigures(
        model,
        counter.name(),
        active.size(),
        uiOnly,
        tokens,
        byRole,
        calls,
        results,
        outputTokens,
        ContextMeter.measureOnce(active, model, counter),
        budget,
        view.id(),
        conversation.views().size(),
        conversation.master().size(),
        synthesized,
        synthesizedTokens,
        covered,
        reminded);
  }

  /** Tokens at which the 90 % reminder is due. */
  long reminderAt() {
    return (long) Math.ceil(AutoCompactor.Settings.DEFAULTS.reminderRatio() * budget.tokens());
  }

  /** The text {@code /context} prints. */
  String text() {
    long context = measured.tokens();
    long b = budget.tokens();
    StringBuilder s = new StringBuilder();
    s.append(
        String.format(
            Locale.ROOT,
            "context     %,d of %,d tokens (%s of the budget); view %s, model %s%n",
            context,
            b,
            percent(context, b),
            viewId,
            model));
    s.append("            ").append(bar(context, b)).append('\n');
    if (measured.anchored()) {
      s.append(
          String.format(
              Locale.ROOT,
              "anchor      usage anchor at message %d: %,d reported + %,d estimated%n",
              measured.anchorIndex(),
              measured.reportedTokens(),
              measured.estimatedTokens()));
    } else {
      s.append(
          String.format(
              Locale.ROOT, "anchor      none (estimate): %s%n", measured.rejectedReason()));
    }
    s.append(
        String.format(
            Locale.ROOT,
            "counted     %,d tokens in %,d messages%s; tokenizer %s%n",
            tokens,
            messages - uiOnly,
            uiOnly > 0 ? " (" + uiOnly + " UI-only, not counted)" : "",
            tokenizer));
    boolean first = true;
    for (Map.Entry<String, RoleCount> e : byRole.entrySet()) {
      RoleCount rc = e.getValue();
      s.append(first ? "by role     " : "            ");
      first = false;
      s.append(
          String.format(
              Locale.ROOT,
              "%-10s %,6d messages %,10d tokens %7s%n",
              e.getKey(),
              rc.messages(),
              rc.tokens(),
              percent(rc.tokens(), tokens)));
    }
    s.append(
        String.format(
            Locale.ROOT,
            "tools       %,d calls, %,d results, %,d tool output tokens%n",
            toolCalls,
            toolResults,
            toolOutputTokens));
    s.append(
        String.format(
            Locale.ROOT,
            "view        %s: %,d of its entries synthesized by compaction (%,d tokens, standing for"
                + " %,d messages); %d view(s), master log %,d messages%n",
            viewId,
            synthesized,
            synthesizedTokens,
            covered,
            views,
            masterMessages));
    s.append(
        String.format(
            Locale.ROOT,
            "budget      %,d (%s); window %,d (%s); max output %,d%n",
            b,
            BudgetOptions.Budget.of(budget).describeSource(),
            budget.window(),
            budget.windowSource(),
            budget.maxOutput()));
    long reminder = reminderAt();
    s.append(
        String.format(
            Locale.ROOT,
            "reminder    at %,d tokens (90 %%): %s%n",
            reminder,
            reminderSent
                ? "sent for view " + viewId
                : context >= reminder
                    ? "due after the next turn"
                    : String.format(Locale.ROOT, "%,d tokens away", reminder - context)));
    s.append(
        String.format(
            Locale.ROOT,
            "compaction  at %,d tokens: %s%n",
            b,
            context >= b
                ? "due after the next turn (the context is at or over the budget)"
                : String.format(Locale.ROOT, "%,d tokens away", b - context)));
    return s.toString();
  }

  private static String percent(long part, long whole) {
    if (whole <= 0) {
      return "0 %";
    }
    return String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
  }

  /** A 40-cell bar of the budget: used, free until the reminder (90 %), free until compaction. */
  static String bar(long context, long budget) {
    int cells = 40;
    int used = (int) Math.min(cells, Math.round(cells * (double) context / budget));
    int reminder = (int) Math.round(cells * AutoCompactor.Settings.DEFAULTS.reminderRatio());
    StringBuilder s = new StringBuilder("[");
    for (int i = 0; i < cells; i++) {
      s.append(i < used ? '#' : i < reminder ? '.' : ':');
    }
    s.append(']');
    if (context > budget) {
      s.append(String.format(Locale.ROOT, " over by %,d", context - budget));
    }
    return s.toString();
  }
}
