package dev.compactor.cli;

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

  @Override
  public Integer call() throws Exception {
    try (ConversationInput input = ConversationInput.read(file, format)) {
      return inspect(input);
    }
  }

  private int inspect(ConversationInput input) throws Exception {
    Map<String, String> env = CompactorCommand.envOf(parent);
    String model = budget.model(input);
    ResolvedBudget b = budget.resolve(input, model, env);
    TokenCounter counter = TokenCounters.forModel(model);
    ViewValidator validator = new ViewValidator();

    Map<String, Object> out = new LinkedHashMap<>();
    out.put("file", file.toString());
    out.put("format", input.format());
    out.put("model", model);
    out.put("modelSource", budget.modelSource(input));
    out.put("tokenizer", counter.name());
    out.put("conversations", input.conversations().size());

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
    List<Map<String, Object>> invalid = new ArrayList<>();
    List<Map<String, Object>> perConversation = new ArrayList<>();
    for (ImportedConversation c : input.conversations()) {
      long convTokens = 0;
      for (Message m : c.messages()) {
        messages++;
        if (m.uiOnly()) {
          uiOnly++;
          continue;
        }
        int t = counter.countMessage(m);
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
        Map<String, Object> iv = new LinkedHashMap<>();
        iv.put("conversation", c.name());
        iv.put("kind", v.kind().name());
        iv.put("index", v.index());
        iv.put("messageId", v.messageId());
        iv.put("detail", v.detail());
        invalid.add(iv);
      }
      ContextMeasurement measured = ContextMeter.measureOnce(c.messages(), model, counter);
      Map<String, Object> pc = new LinkedHashMap<>();
      pc.put("name", c.name());
      pc.put("messages", c.messages().size());
      pc.put("tokens", convTokens);
      Map<String, Object> anchor = new LinkedHashMap<>();
      anchor.put("valid", measured.anchored());
      anchor.put("contextTokens", measured.tokens());
      if (measured.anchored()) {
        anchor.put("anchorIndex", measured.anchorIndex());
        anchor.put("reportedTokens", measured.reportedTokens());
        anchor.put("estimatedTokens", measured.estimatedTokens());
      } else {
        anchor.put("reason", measured.rejectedReason());
      }
      pc.put("anchor", anchor);
      pc.put("overBudget", measured.tokens() > b.tokens());
      perConversation.add(pc);
    }
    out.put("messages", messages);
    out.put("uiOnlyMessages", uiOnly);
    out.put("tokens", tokens);
    Map<String, Object> roles = new LinkedHashMap<>();
    byRole.forEach(
        (k, v) -> {
          Map<String, Object> r = new LinkedHashMap<>();
          r.put("messages", v[0]);
          r.put("tokens", v[1]);
          roles.put(k, r);
        });
    out.put("byRole", roles);
    out.put("toolCalls", toolCalls);
    out.put("toolResults", toolResults);
    out.put("toolOutputTokens", toolOutputTokens);
    out.put("window", Map.of("tokens", b.window(), "source", b.windowSource()));
    out.put("budget", new LinkedHashMap<>(Map.of("tokens", b.tokens(), "source", b.source())));
    out.put("maxOutput", b.maxOutput());
    if (perConversation.size() == 1) {
      out.put("anchor", perConversation.get(0).get("anchor"));
    }
    out.put("perConversation", perConversation);
    out.put("invalid", invalid);

    PrintWriter w = spec.commandLine().getOut();
    if (json) {
      w.println(
          new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out));
    } else {
      printText(w, out, byRole, perConversation, invalid);
    }
    w.flush();
    return invalid.isEmpty() ? 0 : 1;
  }

  private static Map<String, Object> tokensAndSource(long tokens, String source) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tokens", tokens);
    m.put("source", source);
    return m;
  }

  @SuppressWarnings("unchecked")
  private static void printText(
      PrintWriter w,
      Map<String, Object> out,
      Map<String, long[]> byRole,
      List<Map<String, Object>> per,
      List<Map<String, Object>> invalid) {
    w.printf("%s%n", out.get("file"));
    w.printf("  format        %s%n", out.get("format"));
    w.printf(
        "  model         %s (%s; tokenizer %s)%n",
        out.get("model"), out.get("modelSource"), out.get("tokenizer"));
    if (per.size() > 1) {
      w.printf("  conversations %d%n", per.size());
    }
    w.printf(
        "  messages      %,d%s%n",
        (long) out.get("messages"),
        (long) out.get("uiOnlyMessages") > 0
            ? " (" + out.get("uiOnlyMessages") + " UI-only, not counted)"
            : "");
    w.printf("  tokens        %,d%n", (long) out.get("tokens"));
    byRole.forEach(
        (role, v) -> {
          if (v[0] > 0) {
            w.printf("    %-10s  %,8d messages  %,12d tokens%n", role, v[0], v[1]);
          }
        });
    w.printf(
        "  tool calls    %,d, results %,d, tool output tokens %,d%n",
        (long) out.get("toolCalls"),
        (long) out.get("toolResults"),
        (long) out.get("toolOutputTokens"));
    Map<String, Object> window = (Map<String, Object>) out.get("window");
    Map<String, Object> budget = (Map<String, Object>) out.get("budget");
    w.printf("  window        %,d (%s)%n", (long) window.get("tokens"), window.get("source"));
    w.printf(
        "  budget        %,d (%s); max output %,d%n",
        (long) budget.get("tokens"), budget.get("source"), (int) out.get("maxOutput"));
    int shown = 0;
    for (Map<String, Object> pc : per) {
      if (shown++ == 10) {
        w.printf("  ... %d more conversations (use --json for all)%n", per.size() - 10);
        break;
      }
      Map<String, Object> a = (Map<String, Object>) pc.get("anchor");
      String prefix = per.size() > 1 ? "  [" + pc.get("name") + "] " : "  ";
      String verdict = (boolean) pc.get("overBudget") ? "OVER budget" : "within budget";
      if ((boolean) a.get("valid")) {
        w.printf(
            "%scontext %,d tokens (usage anchor at message %d: %,d reported + %,d estimated),"
                + " %s%n",
            prefix,
            (long) a.get("contextTokens"),
            (int) a.get("anchorIndex"),
            (long) a.get("reportedTokens"),
            (long) a.get("estimatedTokens"),
            verdict);
      } else {
        w.printf(
            "%scontext %,d tokens (estimate; no usage anchor: %s), %s%n",
            prefix, (long) a.get("contextTokens"), a.get("reason"), verdict);
      }
    }
    if (invalid.isEmpty()) {
      w.printf("  invariants    valid%n");
    } else {
      w.printf(Locale.ROOT, "  invariants    %d violation(s)%n", invalid.size());
      for (Map<String, Object> v : invalid.subList(0, Math.min(20, invalid.size()))) {
        w.printf(
            "    %s at %s (%s): %s%n",
            v.get("kind"), v.get("index"), v.get("messageId"), v.get("detail"));
      }
    }
  }
}
