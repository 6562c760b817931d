package dev.compactor.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.compactor.core.budget.ResolvedBudget;
import dev.compactor.core.message.Message;
import dev.compactor.core.message.Role;
import dev.compactor.core.tokens.ContextMeasurement;
import dev.compactor.core.tokens.ContextMeter;
import dev.compactor.core.tokens.TokenCounter;
import dev.compactor.core.tokens.TokenCounters;
import dev.compactor.core.view.ViewValidator;
import dev.compactor.core.view.Violation;
import dev.compactor.log.imports.ImportedConversation;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code compactor inspect}: what a conversation holds, what it costs, and whether it is valid. */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Shows a conversation: the format detected, messages and tokens by role, tool calls and"
          + " results, the usage anchor, the window and budget (with the layer each came from)"
          + " and invariant violations.",
      "FILE is a transcript in any supported format (.gz read transparently) or a conversation"
          + " directory."
    })
final class InspectCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @ParentCommand CompactorCommand parent;

  @Parameters(index = "0", paramLabel = "FILE", description = "Transcript file or directory.")
  Path file;

  @Mixin BudgetOptions budget = new BudgetOptions();

  @Option(
      names = "--format",
      paramLabel = "F",
      description =
          "Read as this format instead of detecting it (compactor, gptme, claude-code,"
              + " openai-chat, anthropic-messages, tau-bench, mini-swe-agent, swe-agent).")
  String format;

  @Option(names = "--json", description = "Print one JSON object.")
  boolean json;

  @Mixin StrictOption reading = new StrictOption();

  @Option(
      names = "--web",
      description =
          "Serve the inspector page of the conversation directory on 127.0.0.1: print its address"
              + " on the first line and serve until interrupted (Ctrl-C).")
  boolean web;

  @Option(
      names = "--port",
      paramLabel = "N",
      description = "Port of --web (default: 0, any free port).")
  int port;

  @Override
  public Integer call() throws Exception {
    TokenizerWarmUp.start(file, budget.model);
    // Read-only: a directory is read in place, with no lock and nothing written or saved.
    try (ConversationInput input = ConversationInput.read(file, format, true)) {
      if (web) {
        return InspectWeb.serve(spec, parent, file, budget, input, port);
      }
      return inspect(input.checked(reading.strict));
    }
  }

  /** A count of tokens and the layer it came from. */
  record TokensAndSource(long tokens, String source) {}

  /** Messages and tokens of one role. */
  record RoleCount(long messages, long tokens) {}

  /**
   * How the context was measured: from a usage anchor (reported + estimated after it) or estimated.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Anchor(
      boolean valid,
      long contextTokens,
      Integer anchorIndex,
      Long reportedTokens,
      Long estimatedTokens,
      String reason) {
    static Anchor of(ContextMeasurement m) {
      return m.anchored()
          ? new Anchor(
              true, m.tokens(), m.anchorIndex(), m.reportedTokens(), m.estimatedTokens(), null)
          : new Anchor(false, m.tokens(), null, null, null, m.rejectedReason());
    }
  }

  /** One conversation of the file. */
  record PerConversation(
      String name, int messages, long tokens, Anchor anchor, boolean overBudget) {}

  /** One invariant violation. */
  record Invalid(String conversation, String kind, int index, String messageId, String detail) {}

  /**
   * What {@code inspect} prints (as JSON with {@code --json}).
   *
   * @param anchor the measurement of the only conversation, null for several
   */
  record Inspection(
      String file,
      String format,
      String model,
      String modelSource,
      String tokenizer,
      int conversations,
      long messages,
      long uiOnlyMessages,
      long tokens,
      Map<String, RoleCount> byRole,
      long toolCalls,
      long toolResults,
      long toolOutputTokens,
      TokensAndSource window,
      BudgetOptions.Budget budget,
      int maxOutput,
      @JsonInclude(JsonInclude.Include.NON_NULL) Anchor anchor,
      List<PerConversation> perConversation,
      List<Invalid> invalid,
      List<String> notes,
      List<String> problems) {}

  private int inspect(ConversationInput input) throws Exception {
    Map<String, String> env = CompactorCommand.envOf(parent);
    String model = budget.model(input);
    ResolvedBudget b = budget.resolve(input, model, env, false);
    TokenCounter counter = TokenCounters.forModel(model);
    ViewValidator validator = new ViewValidator();

    long messages = 0;
    long tokens = 0;
    long toolCalls = 0;
    long toolResults = 0;
    long toolOutputTokens = 0;
    long uiOnly = 0;
    Map<String, long[]> byRole = new LinkedHashMap<>();
    for (Role r : Role.values()) {
      byRole.put(r.wireName(), new long[2]);
    }
    List<Invalid> invalid = new ArrayList<>();
    List<PerConversation> perConversation = new ArrayList<>();
    for (ImportedConversation c : input.conversations()) {
      long convTokens = 0;
      int[] each = counter.countEach(c.messages()); // long spans on all cores
      for (int i = 0; i < each.length; i++) {
        Message m = c.messages().get(i);
        messages++;
        if (m.uiOnly()) {
          uiOnly++;
          continue;
        }
        int t = each[i];
        convTokens += t;
        long[] slot = byRole.get(m.role().wireName());
        slot[0]++;
        slot[1] += t;
        toolCalls += m.toolCalls().size();
        if (m.role() == Role.TOOL) {
          toolResults++;
          toolOutputTokens += t;
        }
      }
      tokens += convTokens;
      for (Violation v : validator.validate(c.messages())) {
        invalid.add(new Invalid(c.name(), v.kind().name(), v.index(), v.messageId(), v.detail()));
      }
      ContextMeasurement measured = ContextMeter.measureOnce(c.messages(), model, counter);
      perConversation.add(
          new PerConversation(
              c.name(),
              c.messages().size(),
              convTokens,
              Anchor.of(measured),
              measured.tokens() > b.tokens()));
    }
    Map<String, RoleCount> roles = new LinkedHashMap<>();
    byRole.forEach((k, v) -> roles.put(k, new RoleCount(v[0], v[1])));
    Inspection out =
        new Inspection(
            file.toString(),
            input.format(),
            model,
            budget.modelSource(input),
            counter.name(),
            input.conversations().size(),
            messages,
            uiOnly,
            tokens,
            roles,
            toolCalls,
            toolResults,
            toolOutputTokens,
            new TokensAndSource(b.window(), b.windowSource()),
            BudgetOptions.Budget.of(b),
            b.maxOutput(),
            perConversation.size() == 1 ? perConversation.get(0).anchor() : null,
            perConversation,
            invalid,
            input.notes(),
            input.problems());

    PrintWriter w = spec.commandLine().getOut();
    if (json) {
      w.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out));
    } else {
      printText(w, out);
    }
    w.flush();
    return invalid.isEmpty() ? 0 : 1;
  }

  private static void printText(PrintWriter w, Inspection out) {
    List<PerConversation> per = out.perConversation();
    w.printf("%s%n", out.file());
    w.printf("  format        %s%n", out.format());
    w.printf(
        "  model         %s (%s; tokenizer %s)%n", out.model(), out.modelSource(), out.tokenizer());
    if (per.size() > 1) {
      w.printf("  conversations %d%n", per.size());
    }
    w.printf(
        "  messages      %,d%s%n",
        out.messages(),
        out.uiOnlyMessages() > 0 ? " (" + out.uiOnlyMessages() + " UI-only, not counted)" : "");
    w.printf("  tokens        %,d%n", out.tokens());
    out.byRole()
        .forEach(
            (role, v) -> {
              if (v.messages() > 0) {
                w.printf(
                    "    %-10s  %,8d messages  %,12d tokens%n", role, v.messages(), v.tokens());
              }
            });
    w.printf(
        "  tool calls    %,d, results %,d, tool output tokens %,d%n",
        out.toolCalls(), out.toolResults(), out.toolOutputTokens());
    w.printf("  window        %,d (%s)%n", out.window().tokens(), out.window().source());
    w.printf(
        "  budget        %,d (%s); max output %,d%n",
        out.budget().tokens(), out.budget().describeSource(), out.maxOutput());
    int shown = 0;
    for (PerConversation pc : per) {
      if (shown++ == 10) {
        w.printf("  ... %d more conversations (use --json for all)%n", per.size() - 10);
        break;
      }
      Anchor a = pc.anchor();
      String prefix = per.size() > 1 ? "  [" + pc.name() + "] " : "  ";
      String verdict = pc.overBudget() ? "OVER budget" : "within budget";
      if (a.valid()) {
        w.printf(
            "%scontext %,d tokens (usage anchor at message %d: %,d reported + %,d estimated),"
                + " %s%n",
            prefix,
            a.contextTokens(),
            a.anchorIndex(),
            a.reportedTokens(),
            a.estimatedTokens(),
            verdict);
      } else {
        w.printf(
            "%scontext %,d tokens (estimate; no usage anchor: %s), %s%n",
            prefix, a.contextTokens(), a.reason(), verdict);
      }
    }
    for (String n : out.notes()) {
      w.printf("  note          %s%n", n);
    }
    for (String p : out.problems()) {
      w.printf("  problem       %s%n", p);
    }
    List<Invalid> invalid = out.invalid();
    if (invalid.isEmpty() && !out.problems().isEmpty()) {
      // The import repaired what it could (orphan results kept as user messages, unanswered
      // calls moved to metadata) or skipped it: the conversation as read is valid.
      w.printf("  invariants    valid as imported (the problems above were repaired or skipped)%n");
    } else if (invalid.isEmpty()) {
      w.printf("  invariants    valid%n");
    } else {
      w.printf(Locale.ROOT, "  invariants    %d violation(s)%n", invalid.size());
      for (Invalid v : invalid.subList(0, Math.min(20, invalid.size()))) {
        w.printf("    %s at %s (%s): %s%n", v.kind(), v.index(), v.messageId(), v.detail());
      }
    }
  }
}
